// `npm run bench`: runs every bench/*.ts (except this file) one after the other, each in its own
// process, or only those named on the command line (`npm run bench -- rest-read`). Helpers that a
// benchmark starts (servers, child processes) live in bench/lib/, which is not run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3))
  .sort();
const asked = process.argv.slice(2).map((a) => a.replace(/^bench\//, '').replace(/\.ts$/, ''));
const unknown = asked.filter((a) => !all.includes(a));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}
const chosen = asked.length ? asked : all;
let failed = 0;
for (const name of chosen) {
  console.log(`\n=== bench/${name}.ts`);
  const result = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', `${dir}${name}.ts`], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.error(`bench/${name}.ts failed (exit ${result.status ?? result.signal})`);
  }
}
process.exit(failed ? 1 : 0);
