import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { until } from './wait.ts';
import { UNLIMITED_CREDENTIALS } from './service.ts';

// Service processes as children of a test: `concierge serve` and `concierge worker` exactly as an
// operator starts them (the project's Node, src/main.ts), and HAProxy in front of them. Their
// output is kept (pino JSON lines) for what the test must learn from it, and shown if they fail.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NODE = `${ROOT}node_modules/.bin/node`;

export interface ChildService {
  readonly child: ChildProcess;
  /** Every line it wrote so far (stdout and stderr). */
  lines(): string[];
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  readonly exited: Promise<number | string>;
  /** Sends a signal, and (SIGKILL) waits for it to be gone. */
  signal(signal: NodeJS.Signals): Promise<void>;
  /** The first logged JSON line carrying `field`, parsed; waits for it up to `withinMs`. */
  logged(field: string, withinMs?: number): Promise<Record<string, unknown>>;
}

export function startChild(args: string[], env: Record<string, string>, options: { command?: string } = {}): ChildService {
  const command = options.command ?? NODE;
  const argv = options.command ? args : ['--disable-warning=ExperimentalWarning', `${ROOT}src/main.ts`, ...args];
  const child = spawn(command, argv, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...UNLIMITED_CREDENTIALS, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  const collect = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter(Boolean));
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    lines: () => [...lines, ...(partial ? [partial] : [])],
    exited,
    async signal(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      if (signal === 'SIGKILL') await exited;
    },
    async logged(field, withinMs = 60_000) {
      let found: Record<string, unknown> | undefined;
      await until(`a log line with ${field}`, () => {
        for (const line of lines) {
          if (!line.includes(`"${field}"`)) continue;
          try {
            found = JSON.parse(line) as Record<string, unknown>;
            return true;
          } catch {
            // Not JSON.
          }
        }
        if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before logging ${field}:\n${lines.slice(-20).join('\n')}`);
        return false;
      }, withinMs, 100).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; its last lines:\n${lines.slice(-20).join('\n')}`);
      });
      return found!;
    },
  };
}

/** HAProxy from the OS package, round-robin over `backends` (HTTP and WebSocket), on 127.0.0.1:`port`. */
export function startHaproxy(configPath: string, port: number, backends: number[]): ChildService {
  writeFileSync(configPath, [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  timeout tunnel 1h',
    'frontend public',
    `  bind 127.0.0.1:${port}`,
    '  default_backend web',
    'backend web',
    '  balance roundrobin',
    // A new connection per request (no keep-alive reuse), so consecutive requests of one browser go to different nodes.
    '  option http-server-close',
    ...backends.map((backend, i) => `  server web${i + 1} 127.0.0.1:${backend}`),
    '',
  ].join('\n'));
  const binary = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path)) ?? 'haproxy';
  return startChild(['-f', configPath, '-db'], {}, { command: binary });
}
