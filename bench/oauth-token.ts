// Refresh-token grants per second: the service on PGlite and on PostgreSQL, side by side with
// node-oidc-provider doing the same grant on the same machine, in one run.
//
//   node --disable-warning=ExperimentalWarning bench/oauth-token.ts
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test …   (PostgreSQL too; TEST_DATABASE_URL also works)
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=32 …
//
// Each server runs in its own process; this process only drives the load, over keep-alive HTTP
// connections. Every connection follows its own refresh-token chain (each response's refresh
// token is the next request's), so every request is a genuine rotation; a non-200 stops the run.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { startAuthorization } from '../src/oauth/authorize.ts';
import { decideAuthorization } from '../src/oauth/consent.ts';
import { createOperatorClient } from '../src/oauth/operator-clients.ts';
import { upsertUser } from '../src/identity/users.ts';
import { s256 } from '../src/oauth/tokens.ts';
import { randomSecret } from '../src/security/secrets.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const POSTGRES = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const NODE_ARGS = ['--disable-warning=ExperimentalWarning', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])];
const ROOT = join(import.meta.dirname, '..');

interface Target {
  tokenUrl: string;
  basic: string;
  refreshTokens: string[];
  stop(): Promise<void>;
}

interface Result {
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

/** Runs every connection's chain for warm-up plus SECONDS; counts the grants of the measured part. */
async function drive(target: Target): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const url = new URL(target.tokenUrl);
  const start = performance.now();
  const measureFrom = start + WARMUP_SECONDS * 1000;
  const end = measureFrom + SECONDS * 1000;
  const latencies: number[] = [];
  let failure: string | null = null;
  await Promise.all(
    target.refreshTokens.map(async (first) => {
      let token = first;
      while (failure === null && performance.now() < end) {
        const sent = performance.now();
        const reply = await post(agent, url, target.basic, `grant_type=refresh_token&refresh_token=${encodeURIComponent(token)}`);
        const done = performance.now();
        if (reply.status !== 200) {
          failure = `${reply.status} ${reply.text.slice(0, 200)}`;
          break;
        }
        token = JSON.parse(reply.text).refresh_token;
        if (sent >= measureFrom && done <= end) latencies.push(done - sent);
      }
    }),
  );
  agent.destroy();
  if (failure !== null) throw new Error(`a refresh failed: ${failure}`);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { grantsPerSecond: latencies.length / SECONDS, p50: at(0.5), p99: at(0.99) };
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
  const env = { ...process.env, NODE_ENV: 'development', PORT: String(port), BASE_URL: baseUrl, DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, WORKERS: '0', LOG_LEVEL: 'warn', OIDC_ISSUER: '' };
  const child = spawn(process.execPath, [...NODE_ARGS, join(ROOT, 'src', 'main.ts'), 'serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout!.resume();
  for (let i = 0; ; i++) {
    const up = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    if (up) break;
    if (i > 300 || child.exitCode !== null) throw new Error('the service did not start');
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
      const started = await startAuthorization(database.db, { issuer: baseUrl, resource: `${baseUrl}/api/mcp` }, { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'book read', state: 's', code_challenge: s256(verifier), code_challenge_method: 'S256' });
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
  return { tokenUrl: `${baseUrl}/oauth/token`, basic, refreshTokens, stop: () => stopChild(child) };
}

async function reference(): Promise<Target> {
  const child = spawn(process.execPath, [...NODE_ARGS, join(import.meta.dirname, 'oauth-token-reference.ts'), String(CONNECTIONS)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const info = JSON.parse(await waitForLine(child)) as { url: string; clientId: string; clientSecret: string; refreshTokens: string[] };
  return { tokenUrl: `${info.url}/token`, basic: `Basic ${Buffer.from(`${info.clientId}:${info.clientSecret}`).toString('base64')}`, refreshTokens: info.refreshTokens, stop: () => stopChild(child) };
}

async function measure(name: string, make: () => Promise<Target>): Promise<Result> {
  const target = await make();
  try {
    const result = await drive(target);
    console.log(`  ${name.padEnd(34)} ${result.grantsPerSecond.toFixed(0).padStart(7)} grants/s   p50 ${result.p50.toFixed(1)} ms   p99 ${result.p99.toFixed(1)} ms`);
    return result;
  } finally {
    await target.stop();
  }
}

console.log(`refresh_token grants per second: ${CONNECTIONS} keep-alive connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, each server in its own process`);
const results: Record<string, Result> = {};
const dataDir = mkdtempSync(join(tmpdir(), 'concierge-bench-'));
try {
  results.pglite = await measure('concierge, PGlite', () => concierge(`pglite:${dataDir}`, 'public'));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (POSTGRES) {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  try {
    results.postgres = await measure('concierge, PostgreSQL', () => concierge(POSTGRES, schema));
  } finally {
    const client = new pg.Client({ connectionString: POSTGRES });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade; drop schema if exists "${schema}_pgboss" cascade`);
    await client.end();
  }
} else {
  console.log('  concierge, PostgreSQL               skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
}
results.reference = await measure('oidc-provider (in-memory storage)', reference);
const ref = results.reference.grantsPerSecond;
for (const [key, label] of [['pglite', 'PGlite'], ['postgres', 'PostgreSQL']] as const) {
  const r = results[key];
  if (r) console.log(`  ratio concierge on ${label} / oidc-provider: ${(r.grantsPerSecond / ref).toFixed(2)}`);
}
