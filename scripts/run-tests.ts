// The test suite, as `npm test` runs it: every test/**/*.test.ts file in its own process, several at
// once, the slowest files first. `node --test` sorts its files by path, so a long file late in the
// alphabet (test/reach/, test/sandbox/) started last and ran alone while the others had finished;
// started first, it runs beside the short ones. test/slow-files.txt lists the slow files, slowest
// first (an ordering hint from a measured run: a file it misses still runs, after them).
// Files named on the command line run alone: `npm test -- test/api/cancel.test.ts`.
import { glob, readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = join(import.meta.dirname, '..');
const named = process.argv.slice(2);
const all: string[] = named.map((f) => relative(root, resolve(f)));
if (named.length === 0) for await (const f of glob('test/**/*.test.ts', { cwd: root })) all.push(f);
const slow = (await readFile(join(root, 'test/slow-files.txt'), 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const rank = (f: string) => (slow.includes(f) ? slow.indexOf(f) : slow.length);
const files = all.sort().sort((a, b) => rank(a) - rank(b));

// Two per core: most files spend much of their time waiting (for a browser, a hold to run out, a
// lease to lapse), and a second file per core fills that time.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, 2 * cpus().length));
let failed = 0;
const stream = run({
  files: files.map((f) => join(root, f)),
  concurrency,
  timeout: 180_000,
  forceExit: true,
  execArgv: ['--disable-warning=ExperimentalWarning'],
});
stream.on('test:fail', () => failed++);
stream.compose(spec).pipe(process.stdout);
stream.on('end', () => {
  process.exitCode = failed > 0 ? 1 : 0;
});
