// A server for bench/rest-read.ts, run in its own process so it does not share a CPU core with the
// load generator. Modes (argv[2]):
//   service <DATABASE_URL>  the real Concierge service (WORKERS=0, LOG_LEVEL=warn) with 100 jobs;
//   ceiling                 a bare node:http server answering a fixed JSON body from memory.
// It reports {url, paths, key} to the parent over IPC, answers 'cpu' with its process.cpuUsage(),
// and stops on 'stop'.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { dropSchemas } from '../../src/db/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startService } from '../../src/server.ts';
import { mintApiKey } from '../../src/auth/api-keys.ts';

/** The request limit is counted as in production, high enough that the load is measured rather than refused. */
const BENCH_RATE_LIMIT = '1000000';

const send = (message: unknown) => process.send!(message);
const mode = process.argv[2];
const JOBS = 100;

async function waitForStop(): Promise<void> {
  await new Promise<void>((resolve) =>
    process.on('message', (m) => {
      if (m === 'cpu') send(process.cpuUsage());
      if (m === 'stop') resolve();
    }),
  );
}

if (mode === 'ceiling') {
  const [body] = (await once(process, 'message')) as [string];
  const payload = Buffer.from(body);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': payload.length });
    res.end(payload);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  send({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths: ['/'], key: '' });
  await waitForStop();
  server.close();
} else if (mode === 'service') {
  const databaseUrl = process.argv[3]!;
  const schema = databaseUrl.startsWith('postgres') ? `bench_${randomBytes(5).toString('hex')}` : 'public';
  const config = loadConfig({}, { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, PORT: '0', WORKERS: '0', LOG_LEVEL: 'warn', NODE_ENV: 'test', API_KEY_RATE_LIMIT: BENCH_RATE_LIMIT });
  const service = await startService(config, createLogger(config.LOG_LEVEL));
  const url = service.url.replace('[::1]', '127.0.0.1');
  const { key } = await mintApiKey(service.services.db, { organizationName: 'Bench', allowedJobTypes: ['restaurant'], live: false, dailyLimit: null });
  const date = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  // Clients poll many jobs, not one: the load spreads over JOBS jobs, so no read is answered for
  // another that happened to ask for the same row.
  const paths: string[] = [];
  for (let i = 0; i < JOBS; i++) {
    const created = await fetch(`${url}/api/v1/execution-jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        request: { scenario: 'restaurant', params: { restaurant_name: `Noma ${i}`, city: 'Copenhagen', date, time: '19:30', covers: 2 } },
        profile: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' },
      }),
    });
    if (created.status !== 202) throw new Error(`could not create a bench job: ${created.status} ${await created.text()}`);
    paths.push(`/api/v1/execution-jobs/${((await created.json()) as { jobId: string }).jobId}`);
  }
  send({ url, paths, key });
  await waitForStop();
  await service.close();
  if (schema !== 'public') {
    await dropSchemas(databaseUrl, schema);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
process.disconnect?.();
