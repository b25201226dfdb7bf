import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { dropSchemas, openDatabase, type Database } from '../../src/db/index.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { mintApiKey } from '../../src/auth/api-keys.ts';
import { HOLD_LOST_WITHIN_MS } from '../../src/executor/hold-timings.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { call } from '../helpers/http.ts';
import { startChild, startHaproxy, type ChildService } from '../helpers/processes.ts';
import { freePort, requests } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { launchChromium } from '../handoff/browsers.ts';

// Scale-out as an operator runs it, on PostgreSQL: two `concierge serve` nodes with no workers
// behind a round-robin HAProxy, and two `concierge worker` processes, all separate processes
// sharing DATABASE_URL and SECRET_KEY and nothing else. Every handoff page and its live-view
// socket land on a web node, never on the worker holding the booking: the web node relays them.
// The person pays as a person does, on the live view in a real Chromium.

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const BOOKINGS = Number(process.env.CLUSTER_BOOKINGS ?? 10);
/** How long a node process may take to start (a loaded shared machine). */
const STARTUP_MS = 180_000;
/** How many of the held bookings the person pays at the same time. */
const PAYING_AT_ONCE = 3;

describe('scale-out: web nodes behind HAProxy, worker processes holding the bookings', { skip: DATABASE_URL ? false : 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'concierge-cluster-'));
  let sandbox: Sandbox;
  let database: Database;
  let proxy: ChildService;
  let publicUrl: string;
  const webs: ChildService[] = [];
  const workers: ChildService[] = [];
  let person: Browser;
  let key: string;

  const api = (method: string, path: string, body?: unknown) => call(publicUrl, method, path, { key, ...(body === undefined ? {} : { body }) });
  const job = async (jobId: string) => (await api('GET', `/api/v1/execution-jobs/${jobId}`)).body;
  const waitFor = async (jobId: string, statuses: string[], withinMs = 120_000) => {
    let last: { status: string } | undefined;
    await until(`job ${jobId} reached ${statuses.join('/')}`, async () => {
      last = await job(jobId);
      return statuses.includes(last!.status);
    }, withinMs, 250);
    return last as any;
  };
  // TableBook only: the person reaches its card field by keyboard (see pay()), and a booking that
  // fell back to DineNow on a loaded machine would have a page this test does not know.
  const book = async (name: string) => {
    const created = await api('POST', '/api/v1/execution-jobs', requests.restaurant({ restaurant_name: name }, { allowedProviders: ['tablebook'] }));
    assert.equal(created.status, 202, created.text);
    return created.body.jobId as string;
  };
  const holderOf = async (jobId: string) => (await database.db.selectFrom('jobs').select('hold_instance').where('id', '=', jobId).executeTakeFirstOrThrow()).hold_instance;

  /** Opens the handoff page through the proxy and waits for the live view to show the held tab. */
  const openHandoff = async (handoffUrl: string): Promise<Page> => {
    const context = await person.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(handoffUrl);
    await page.waitForSelector('[data-live-view][data-state="live"]', { timeout: 60_000 });
    await page.waitForSelector('[data-live-view][data-frame-size]', { timeout: 30_000 });
    return page;
  };
  /**
   * The person types a card code into the provider's CVC field on the live view and presses Enter.
   * The tab is in another process, so the field is reached by keyboard as a person could: the
   * payment page's first focusable element is the provider's logo link, the next the CVC field.
   */
  const pay = async (page: Page): Promise<string> => {
    await page.locator('[data-live-view] canvas').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123', { delay: 30 });
    await page.keyboard.press('Enter');
    const shown = await page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 60_000 }).catch(async (error: unknown) => {
      if (process.env.CLUSTER_DEBUG) await page.screenshot({ path: `/tmp/cluster-pay-${Date.now()}.png` });
      throw error;
    });
    return (await shown.getAttribute('data-confirmation-code')) ?? '';
  };

  before(async () => {
    sandbox = await startSandbox();
    const secret = randomBytes(32).toString('base64url');
    const proxyPort = await freePort();
    publicUrl = `http://127.0.0.1:${proxyPort}`;
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: DATABASE_URL!,
      DATABASE_SCHEMA: schema,
      SECRET_KEY: secret,
      BASE_URL: publicUrl,
      PROVIDER_URL_TEMPLATE: `http://{provider}.localhost:${sandbox.port}`,
      LOG_LEVEL: 'info',
      CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    };
    // Migrated once here, so the four processes start on a ready schema.
    database = await openDatabase(loadConfig({}, { DATABASE_URL: DATABASE_URL!, DATABASE_SCHEMA: schema }));
    await migrateToLatest(database.db, schema);
    ({ key } = await mintApiKey(database.db, { organizationName: 'Acme Travel', allowedJobTypes: ['restaurant'], live: false, dailyLimit: null }));
    // A port found free may be taken by another test before the node binds it: then another one.
    const startWeb = async (): Promise<number> => {
      for (let attempt = 1; ; attempt++) {
        const port = await freePort();
        const web = startChild(['serve'], { ...env, PORT: String(port), WORKERS: '0' });
        try {
          await web.logged('address', STARTUP_MS);
          webs.push(web);
          return port;
        } catch (error) {
          if (attempt === 3 || !/EADDRINUSE/.test(String((error as Error).message))) throw error;
        }
      }
    };
    // The first node creates the queue's schema; the others then start together.
    const web1 = await startWeb();
    const second = startWeb();
    // A drain bounded well below the hold: a booking left unpaid by a failed test must not keep the
    // drained worker (and this test) waiting for the whole hold.
    const worker = { ...env, WORKERS: '5', DRAIN_SECONDS: '240' };
    workers.push(startChild(['worker'], worker), startChild(['worker'], worker));
    const web2 = await second;
    proxy = startHaproxy(join(dir, 'haproxy.cfg'), proxyPort, [web1, web2]);
    person = await launchChromium();
    for (const worker of workers) await worker.logged('internalUrl', STARTUP_MS);
    await until('both workers published their nodes', async () => (await database.db.selectFrom('nodes').select('id').execute()).length === 2, 60_000, 200);
    await until('the proxy answers', async () => (await fetch(`${publicUrl}/readyz`).catch(() => null))?.status === 200, 30_000, 200);
  });

  after(async () => {
    if (process.env.CLUSTER_DEBUG) for (const [i, child] of [...webs, ...workers].entries()) (await import('node:fs')).writeFileSync(`/tmp/cluster-node-${i}.log`, child.lines().join('\n'));
    await person?.close();
    for (const child of [...webs, ...workers, proxy]) await child?.signal('SIGKILL');
    await database?.close();
    await sandbox?.close();
    if (DATABASE_URL) await dropSchemas(DATABASE_URL, schema);
    rmSync(dir, { recursive: true, force: true });
  });

  // Ten bookings held, then paid three at a time on live views: beside the rest of the suite on a
  // two-core machine this has needed more than the suite's default three minutes (CI, 2026-12-04).
  test(`${BOOKINGS} concurrent bookings paid through the proxy all complete with their codes`, { timeout: 600_000 }, async () => {
    const jobIds = await Promise.all(Array.from({ length: BOOKINGS }, (_, i) => book(`Cluster ${i}`)));
    const paused = await Promise.all(jobIds.map((id) => waitFor(id, ['paused_payment', 'error', 'completed', 'no_availability'], 420_000)));
    for (const j of paused) assert.equal(j.status, 'paused_payment', j.summary);
    for (const j of paused) assert.match(j.summary, /^Held at TableBook/, 'held at the first-choice provider');
    const holders = new Set(await Promise.all(jobIds.map(holderOf)));
    if (BOOKINGS > 1) assert.equal(holders.size, 2, 'both workers hold bookings');
    // All ten stay held at once while a few are paid at a time: ten live views streaming into one
    // test Chromium beside the workers' ten tabs starve a two-core machine (a page took over 30 s
    // to load under CI), and that measures the test's browser, not the relay.
    const codes: string[] = [];
    const queue = [...paused.entries()];
    await Promise.all(Array.from({ length: PAYING_AT_ONCE }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [i, j] = next;
        const page = await openHandoff(j.handoffUrl);
        codes[i] = await pay(page);
        await page.context().close();
      }
    }));
    for (const [i, id] of jobIds.entries()) {
      const done = await waitFor(id, ['completed', 'error']);
      assert.equal(done.status, 'completed', done.summary);
      assert.equal(done.confirmationCode, codes[i], 'the page showed the code the job records');
    }
    const charged = sandbox.confirmations().map((c) => c.code);
    for (const code of codes) assert.equal(charged.filter((c) => c === code).length, 1, `${code} was charged once`);
  });

  test('the person cancels through a web node: the holder ends the booking and closes its tab at once', async () => {
    const jobId = await book('Cluster cancel');
    const paused = await waitFor(jobId, ['paused_payment']);
    const page = await openHandoff(paused.handoffUrl);
    await Promise.all([page.waitForURL(/\/cancel$/), page.click('[data-cancel] button')]);
    assert.match(await page.locator('body').innerText(), /Booking cancelled/);
    const cancelled = await job(jobId);
    assert.equal(cancelled.status, 'error');
    assert.equal(cancelled.error.reason, 'cancelled_by_user');
    // Written by the holder, which knows what it held (a node that only had the row could not say).
    assert.match(cancelled.summary, /\(it held: /);
    await page.context().close();
  });

  test('the API client cancels through a web node: the holder ends the booking it holds, not the web node', async () => {
    const jobId = await book('Cluster client cancel');
    const paused = await waitFor(jobId, ['paused_payment']);
    const page = await openHandoff(paused.handoffUrl);
    const cancel = await api('POST', `/api/v1/execution-jobs/${jobId}/cancel`);
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(cancel.body.status, 'error');
    assert.equal(cancel.body.error.reason, 'cancelled_by_client');
    // Written by the holder, which knows what it held; a web node with only the row could not say.
    assert.match(cancel.body.summary, /^Cancelled by the API client; .*\(it held: /);
    // The holder closed its tab at once: the person's live view says the booking ended.
    await page.waitForFunction(() => {
      const view = document.querySelector('[data-live-view]');
      const outcome = document.querySelector('[data-outcome]')?.textContent?.trim();
      return !view || view.getAttribute('data-state') === 'ended' || Boolean(outcome);
    }, undefined, { timeout: 30_000 });
    await page.context().close();
  });

  test('a worker sent SIGTERM while holding a booking keeps it until the person pays, then exits', async () => {
    const jobId = await book('Cluster drain');
    const paused = await waitFor(jobId, ['paused_payment']);
    const holder = await holderOf(jobId);
    const page = await openHandoff(paused.handoffUrl);
    const index = await workerIndexOf(holder!);
    const worker = workers[index]!;
    await worker.signal('SIGTERM');
    await until('the holder is draining', async () => (await database.db.selectFrom('nodes').select('draining').where('id', '=', holder!).executeTakeFirst())?.draining === true, 30_000, 100);
    const code = await pay(page);
    const done = await waitFor(jobId, ['completed', 'error']);
    assert.equal(done.status, 'completed', done.summary);
    assert.equal(done.confirmationCode, code);
    assert.equal(await worker.exited, 0, 'the drained worker exits by itself once its hold has ended');
    await page.context().close();
  });

  test('a worker killed while holding a booking: the person sees hold_lost, and how soon is noted against the documented bound', async (t) => {
    const jobId = await book('Cluster loss');
    const paused = await waitFor(jobId, ['paused_payment']);
    const holder = await holderOf(jobId);
    const page = await openHandoff(paused.handoffUrl);
    const worker = workers[await workerIndexOf(holder!)]!;
    const killedAt = Date.now();
    await worker.signal('SIGKILL');
    // No worker is left: the web nodes notice the silent holder.
    await page.waitForSelector('[data-outcome]:has-text("Hold lost")', { timeout: 2 * HOLD_LOST_WITHIN_MS + 30_000 });
    const lostAfter = Date.now() - killedAt;
    const ended = await job(jobId);
    assert.equal(ended.status, 'error');
    assert.equal(ended.error.reason, 'hold_lost');
    assert.match(await page.locator('[data-outcome]').innerText(), /Nothing was charged/);
    // Noted, not asserted to the second: the machine is shared and loaded.
    t.diagnostic(`hold_lost shown ${lostAfter} ms after the kill (documented: within ${HOLD_LOST_WITHIN_MS} ms)`);
  });

  test('no job ran twice', async () => {
    const rows = await database.db.selectFrom('audit_events').select(['job_id']).where('type', '=', 'job_started').execute();
    const runs = new Map<string, number>();
    for (const row of rows) runs.set(row.job_id, (runs.get(row.job_id) ?? 0) + 1);
    // The concurrent bookings, and one each for the two cancels, the drain and the killed worker.
    assert.equal(runs.size, BOOKINGS + 4);
    for (const [jobId, count] of runs) assert.equal(count, 1, `job ${jobId} started ${count} times`);
  });

  /** Which of `workers` has this node id: the one whose published internal address it has. */
  async function workerIndexOf(nodeId: string): Promise<number> {
    const row = await database.db.selectFrom('nodes').select('internal_url').where('id', '=', nodeId).executeTakeFirstOrThrow();
    for (const [i, worker] of workers.entries()) {
      const line = await worker.logged('internalUrl');
      if (line.internalUrl === row.internal_url) return i;
    }
    throw new Error(`no worker has node ${nodeId}`);
  }
});
