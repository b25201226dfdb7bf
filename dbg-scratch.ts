import { call } from './test/helpers/http.ts';
import { startTestService } from './test/helpers/service.ts';
import { requests } from './test/executor/helpers.ts';
const N = Number(process.env.N ?? 20);
process.env.TEST_LOG_LEVEL = 'warn';
const s = await startTestService(process.env.DB ?? 'pglite:memory:', { WORKERS: String(N) }, { sandbox: true });
const key = await s.mintKey();
const ids: string[] = [];
for (let i = 0; i < N; i++) ids.push((await call(s.url, 'POST', '/api/v1/execution-jobs', { key, body: requests.restaurant({ restaurant_name: `D ${i}` }) })).body.jobId);
const t0 = Date.now();
for (;;) {
  await new Promise((r) => setTimeout(r, 5000));
  const jobs = await Promise.all(ids.map((id) => call(s.url, 'GET', `/api/v1/execution-jobs/${id}`, { key })));
  const open = jobs.filter((j) => ['pending', 'running'].includes(j.body.status));
  console.log(`${Math.round((Date.now() - t0) / 1000)}s: ${N - open.length} done, ${open.length} open`);
  if (open.length === 0) break;
  if (Date.now() - t0 > 100_000) {
    for (const j of open) { const l = j.body.decisionLog; console.log(j.body.status, l.slice(-2).map((e: any) => `${e.type}@${Math.round((Date.now() - Date.parse(e.timestamp)) / 1000)}s ago: ${e.message.slice(0, 90)}`).join(' | ')); }
    break;
  }
}
await s.close();
process.exit(0);
