// Refresh-token grants per second: the service on PGlite and on PostgreSQL, side by side with
// node-oidc-provider doing the same grant on the same machine, in one run.
//
//   node --disable-warning=ExperimentalWarning bench/oauth-token.ts
//   BENCH_DATABASE_URL=postgres://… (default the local server at 127.0.0.1:5432/test; `none` skips PostgreSQL)
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=32 …
//
// Each server runs in its own process; this process only drives the load, over keep-alive HTTP
// connections. Every connection follows its own refresh-token chain (each response's refresh
// token is the next request's), so every request is a genuine rotation; a non-200 stops the run.
// Server CPU per grant (from /proc) is printed too: on a shared machine it is steadier than
// throughput. For PostgreSQL it counts the service process only, not the database server's.
// The servers are measured in turns (ROUNDS rounds of SECONDS/ROUNDS each, after a warm-up), so
// that a busy moment on a shared machine weighs on all of them alike; each figure is the total
// of its rounds.
import { DOCUMENT_LIMITS } from '../src/oauth/client-documents.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { dropSchemas, openDatabase } from '../src/db/index.ts';
import { startAuthorization } from '../src/oauth/authorize.ts';
import { decideAuthorization } from '../src/oauth/consent.ts';
import { createOperatorClient } from '../src/oauth/operator-clients.ts';
import { upsertUser } from '../src/identity/users.ts';
import { s256 } from '../src/oauth/tokens.ts';
import { randomSecret } from '../src/security/secrets.ts';
import { BENCH_POSTGRES_URL, reachablePostgres } from './lib/postgres.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const POSTGRES = await reachablePostgres();
const NODE_ARGS = ['--disable-warning=ExperimentalWarning', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])];
const ROOT = join(import.meta.dirname, '..');

// Servers started by this run die with it, however it ends.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

function progress(message: string): void {
  process.stderr.write(`  … ${message}\n`);
}

interface Target {
  pid: number;
  tokenUrl: string;
  basic: string;
  refreshTokens: string[];
  stop(): Promise<void>;
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

interface Result {
  cpuPerGrant: number;
  grantsPerSecond: number;
  p50: number;
  p99: number;
}

function post(agent: Agent, url: URL, basic: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Drives every connection's chain for `seconds` (the chains go on from where the last call left
 * them); returns the latencies of the grants completed in that time.
 */
async function drive(target: Target, seconds: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const url = new URL(target.tokenUrl);
  const end = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let failure: string | null = null;
  await Promise.all(
    target.refreshTokens.map(async (_, chain) => {
      while (failure === null && performance.now() < end) {
        const sent = performance.now();
        const reply = await post(agent, url, target.basic, `grant_type=refresh_token&refresh_token=${encodeURIComponent(target.refreshTokens[chain]!)}`);
        const done = performance.now();
        if (reply.status !== 200) {
          failure = `${reply.status} ${reply.text.slice(0, 200)}`;
          break;
        }
        target.refreshTokens[chain] = JSON.parse(reply.text).refresh_token;
        if (done <= end) latencies.push(done - sent);
      }
    }),
  );
  agent.destroy();
  if (failure !== null) throw new Error(`a refresh failed: ${failure}`);
  return latencies;
}

function summary(latencies: number[], seconds: number, cpu: number): Result {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { grantsPerSecond: sorted.length / seconds, p50: at(0.5), p99: at(0.99), cpuPerGrant: cpu / sorted.length };
}

function waitForLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const newline = buffer.indexOf('\n');
      if (newline >= 0) resolve(buffer.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it was ready`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The service in its own process (`concierge serve`), with one refresh token per connection. */
async function concierge(databaseUrl: string, schema: string): Promise<Target> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { ...process.env, NODE_ENV: 'development', PORT: String(port), BASE_URL: baseUrl, DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, WORKERS: '0', LOG_LEVEL: 'warn', OIDC_ISSUER: '', SANDBOX: 'false' };
  const child = spawn(process.execPath, [...NODE_ARGS, join(ROOT, 'src', 'main.ts'), 'serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  progress(`starting concierge on ${databaseUrl.split(':')[0]}`);
  child.stdout!.resume();
  const deadline = Date.now() + 180_000;
  for (;;) {
    const up = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the service did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Set-up through the core, as the consent page would do it: one approved code per connection.
  const config = loadConfig({}, { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, BASE_URL: baseUrl });
  const database = await openDatabase(config);
  const codes: Array<{ code: string; verifier: string }> = [];
  let clientId: string;
  let clientSecret: string;
  const redirectUri = 'https://bench.example/cb';
  try {
    const { info, clientSecret: secret } = await createOperatorClient(database.db, { name: 'Bench', redirectUris: [redirectUri] });
    clientId = info.client_id;
    clientSecret = secret!;
    for (let i = 0; i < CONNECTIONS; i++) {
      const user = await upsertUser(database.db, { issuer: 'bench', subject: `user-${i}`, email: null, name: null });
      const verifier = randomSecret(32);
      const started = await startAuthorization(database.db, { issuer: baseUrl, resource: `${baseUrl}/api/mcp`, documents: { ...DOCUMENT_LIMITS, brands: [], allowPrivate: false, allowHttpLoopback: false } }, { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'book read', state: 's', code_challenge: s256(verifier), code_challenge_method: 'S256' });
      if (started.kind !== 'consent') throw new Error(`authorization refused: ${JSON.stringify(started)}`);
      const decided = await decideAuthorization(database.db, baseUrl, { requestId: started.requestId, userId: user.id, approve: true });
      codes.push({ code: new URL(decided!.location).searchParams.get('code')!, verifier });
    }
  } finally {
    await database.close();
  }
  const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  const agent = new Agent({ keepAlive: true });
  const refreshTokens: string[] = [];
  for (const { code, verifier } of codes) {
    const reply = await post(agent, new URL(`${baseUrl}/oauth/token`), basic, new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }).toString());
    if (reply.status !== 200) throw new Error(`code exchange failed: ${reply.text}`);
    refreshTokens.push(JSON.parse(reply.text).refresh_token);
  }
  agent.destroy();
  return { pid: child.pid!, tokenUrl: `${baseUrl}/oauth/token`, basic, refreshTokens, stop: () => stopChild(child) };
}

async function reference(): Promise<Target> {
  const child = spawn(process.execPath, [...NODE_ARGS, join(import.meta.dirname, 'lib', 'oauth-token-reference.ts'), String(CONNECTIONS)], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.add(child);
  progress('starting oidc-provider');
  const info = JSON.parse(await waitForLine(child)) as { url: string; clientId: string; clientSecret: string; refreshTokens: string[] };
  return { pid: child.pid!, tokenUrl: `${info.url}/token`, basic: `Basic ${Buffer.from(`${info.clientId}:${info.clientSecret}`).toString('base64')}`, refreshTokens: info.refreshTokens, stop: () => stopChild(child) };
}

console.log(`refresh_token grants per second: ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${SECONDS / ROUNDS} s per server after ${WARMUP_SECONDS} s warm-up, each server in its own process`);
const targets: Array<{ key: string; label: string; target: Target; latencies: number[]; cpu: number }> = [];
const cleanups: Array<() => Promise<void>> = [];
const dataDir = mkdtempSync(join(tmpdir(), 'concierge-bench-'));
cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
try {
  targets.push({ key: 'pglite', label: 'concierge, PGlite', target: await concierge(`pglite:${dataDir}`, 'public'), latencies: [], cpu: 0 });
  if (POSTGRES) {
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    cleanups.push(async () => {
      await dropSchemas(POSTGRES, schema);
    });
    targets.push({ key: 'postgres', label: 'concierge, PostgreSQL', target: await concierge(POSTGRES, schema), latencies: [], cpu: 0 });
  }
  targets.push({ key: 'reference', label: 'oidc-provider (in-memory storage)', target: await reference(), latencies: [], cpu: 0 });
  progress('warming up');
  for (const t of targets) await drive(t.target, WARMUP_SECONDS);
  for (let round = 0; round < ROUNDS; round++) {
    progress(`round ${round + 1} of ${ROUNDS}`);
    for (const t of targets) {
      const before = cpuMs(t.target.pid);
      t.latencies.push(...(await drive(t.target, SECONDS / ROUNDS)));
      t.cpu += cpuMs(t.target.pid) - before;
    }
  }
  const results = new Map(targets.map((t) => [t.key, summary(t.latencies, SECONDS, t.cpu)]));
  for (const t of targets) {
    const r = results.get(t.key)!;
    console.log(`  ${t.label.padEnd(34)} ${r.grantsPerSecond.toFixed(0).padStart(7)} grants/s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   server CPU ${r.cpuPerGrant.toFixed(3)} ms/grant`);
  }
  if (!POSTGRES) console.log(`  concierge, PostgreSQL               skipped (${BENCH_POSTGRES_URL} not reachable)`);
  const ref = results.get('reference')!.grantsPerSecond;
  for (const t of targets.filter((x) => x.key !== 'reference')) {
    const r = results.get(t.key)!;
    console.log(`  ratio ${t.label} / oidc-provider: ${(r.grantsPerSecond / ref).toFixed(2)} (throughput), ${(results.get('reference')!.cpuPerGrant / r.cpuPerGrant).toFixed(2)} (grants per server CPU second)`);
  }
} finally {
  for (const t of targets) await t.target.stop();
  for (const cleanup of cleanups) await cleanup();
}
