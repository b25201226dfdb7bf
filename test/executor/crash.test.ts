import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { auditOf, createJob, requests, waitForJob } from './helpers.ts';

// Crash safety needs several processes on one database, so it runs on PostgreSQL only. Worker
// processes are real `concierge worker` processes; one is killed with SIGKILL in the middle of a job
// (slowed by EXECUTOR_STEP_DELAY_MS so the kill lands mid-run). pg-boss stops seeing its heartbeat,
// fails the job, and another worker takes it up again from the start, saying so in the audit log.
// One is frozen (SIGSTOP) instead: when it thaws after the takeover, its run writes nothing more.

const DATABASE = process.env.TEST_DATABASE_URL;
const CONCIERGE = fileURLToPath(new URL('../../bin/concierge', import.meta.url));

/** Pids of a process's descendants (its Chromium), read from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone meanwhile.
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) if (parent === p) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('crash safety (PostgreSQL, several worker processes)', { skip: DATABASE ? false : 'needs TEST_DATABASE_URL: several processes cannot share an embedded PGlite database' }, () => {
  let service: TestService;
  let key: string;
  const workers: ChildProcess[] = [];
  const chromiums: number[] = [];

  function startWorker(name: string, env: Record<string, string> = {}): ChildProcess {
    const child = spawn(CONCIERGE, ['worker'], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        DATABASE_URL: DATABASE!,
        DATABASE_SCHEMA: service.config.DATABASE_SCHEMA,
        WORKERS: '1',
        LOG_LEVEL: 'warn',
        PROVIDER_URL_TEMPLATE: service.config.PROVIDER_URL_TEMPLATE,
        CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        // These tests stop workers to steer jobs to others; a drain that kept earlier tests' holds
        // for their people would keep the worker alive for HOLD_SECONDS (draining is tested in test/cluster/).
        DRAIN_SECONDS: '0',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr!.on('data', (chunk) => (errors += chunk));
    child.on('exit', (code) => {
      if (code) console.error(`worker ${name} exited ${code}: ${errors.slice(0, 500)}`);
    });
    workers.push(child);
    return child;
  }

  async function kill(child: ChildProcess): Promise<void> {
    chromiums.push(...descendants(child.pid!));
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));
  }

  /** Stops every running worker gracefully (its jobs go back to the queue, its holds end). */
  async function stopAll(): Promise<void> {
    const running = workers.filter((w) => w.exitCode === null && w.signalCode === null);
    for (const w of running) w.kill('SIGTERM');
    await Promise.all(running.map((w) => new Promise((r) => (w.exitCode !== null || w.signalCode !== null ? r(null) : w.once('exit', r)))));
  }

  before(async () => {
    service = await startTestService(DATABASE!, { WORKERS: '0' }, { sandbox: true });
    key = await service.mintKey();
  });
  after(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => (w.exitCode !== null || w.signalCode !== null ? null : new Promise((r) => w.once('exit', r)))));
    // Chromium of a killed worker exits when its pipe closes; anything left of the processes we started is ended by pid.
    for (const pid of chromiums) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await service.close();
  });

  test('a worker killed with SIGKILL mid-job: another takes the job up again from the start within a minute, with an audit event saying so', async () => {
    const a = startWorker('A', { EXECUTOR_STEP_DELAY_MS: '1500' });
    const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Crash Course' }));
    // Wait until A is in the middle of it: a provider step has started.
    await until('worker A got going', async () => (await auditOf(service, key, jobId)).some((e) => e.type === 'step_started' && e.step === 'choose'), 60_000, 200);
    await kill(a);
    const killedAt = Date.now();
    startWorker('B');

    const job = await waitForJob(service, key, jobId, { timeoutMs: 90_000 });
    assert.equal(job.status, 'paused_payment');
    const events = await auditOf(service, key, jobId);
    const starts = events.filter((e) => e.type === 'job_started');
    assert.equal(starts.length, 2);
    assert.equal(starts[0].resumed, undefined);
    assert.equal(starts[1].resumed, true);
    assert.match(starts[1].message, /Taken up again from the start by another worker/);
    assert.ok(Date.parse(starts[1].timestamp) - killedAt < 60_000, `taken up ${Date.parse(starts[1].timestamp) - killedAt} ms after the kill`);
    // From the start: the second run searched again, and counters still agree with the log.
    const after = events.slice(events.indexOf(starts[1]));
    assert.deepEqual(after.filter((e) => e.type === 'step_started' && e.providerId).map((e) => e.step), ['search', 'choose', 'guest_details', 'review', 'payment']);
    assert.equal(job.attemptCount, events.filter((e) => e.type === 'step_attempt').length);
    assert.deepEqual(service.sandbox!.cardCodesReceived(), []);
  });

  test('a worker frozen mid-job (SIGSTOP) loses it to another, which pauses it; thawed, the frozen one writes nothing more', async () => {
    // The job must go to G: the workers of earlier tests stop first.
    await stopAll();
    const a = startWorker('G', { EXECUTOR_STEP_DELAY_MS: '1500' });
    const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Frozen Fork' }));
    await until('worker G got going', async () => (await auditOf(service, key, jobId)).some((e) => e.type === 'step_started' && e.step === 'choose'), 60_000, 100);
    // Frozen, not dead: its claim, connections and browser stay, and its heartbeat goes silent.
    a.kill('SIGSTOP');
    try {
      startWorker('H');
      const job = await waitForJob(service, key, jobId, { timeoutMs: 90_000 });
      assert.equal(job.status, 'paused_payment');
      const paused = await auditOf(service, key, jobId);
      const starts = paused.filter((e) => e.type === 'job_started');
      assert.equal(starts.length, 2);
      assert.equal(starts[1].resumed, true, 'another worker took the job over');
      assert.equal(paused.at(-1).type, 'paused_payment');
      assert.equal(paused.filter((e) => e.type === 'paused_payment').length, 1);

      // Thawed, G picks up where it stopped (its step delay runs out, its heartbeat fires): every
      // write it tries is fenced out by the run id H wrote. Long enough for a step and a heartbeat.
      a.kill('SIGCONT');
      await new Promise((r) => setTimeout(r, 8_000));
      assert.ok(alive(a.pid!), 'G is still running');
      const after = await auditOf(service, key, jobId);
      assert.deepEqual(after.map((e) => `${e.stepIndex} ${e.type}`), paused.map((e) => `${e.stepIndex} ${e.type}`), 'no event after the takeover from the frozen run');
      const still = await waitForJob(service, key, jobId, { until: ['paused_payment', 'completed', 'error'] });
      assert.equal(still.status, 'paused_payment');
      assert.equal(still.attemptCount, after.filter((e) => e.type === 'step_attempt').length);
    } finally {
      a.kill('SIGCONT');
    }
    assert.deepEqual(service.sandbox!.cardCodesReceived(), []);
  });

  test('two workers never run the same job: each of several jobs is started exactly once', async () => {
    startWorker('C');
    startWorker('D');
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await createJob(service, key, requests.restaurant({ restaurant_name: `Twin ${i}` })));
    for (const id of ids) {
      const job = await waitForJob(service, key, id, { timeoutMs: 120_000 });
      assert.equal(job.status, 'paused_payment');
      const events = await auditOf(service, key, id);
      assert.equal(events.filter((e) => e.type === 'job_started').length, 1, `job ${id} started once`);
      assert.equal(events.filter((e) => e.type === 'paused_payment').length, 1);
    }
  });

  test('a held session whose process dies is released by another process (error hold_lost), not left paused', async () => {
    startWorker('E');
    const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Lost Hold', time: '20:30' }));
    // Whichever worker pauses it, kill every worker that holds sessions, keep one fresh process sweeping.
    const job = await waitForJob(service, key, jobId, { timeoutMs: 60_000 });
    assert.equal(job.status, 'paused_payment');
    const row = await service.services.db.selectFrom('jobs').select('hold_instance').where('id', '=', jobId).executeTakeFirstOrThrow();
    assert.ok(row.hold_instance);
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) await kill(w);
    const killedAt = Date.now();
    startWorker('F');
    const released = await waitForJob(service, key, jobId, { until: ['error'], timeoutMs: 90_000 });
    assert.equal(released.error.reason, 'hold_lost');
    assert.ok(Date.now() - killedAt < 60_000);
    const events = await auditOf(service, key, jobId);
    assert.match(events.at(-1).message, /process holding this booking's browser session stopped/);
  });
});
