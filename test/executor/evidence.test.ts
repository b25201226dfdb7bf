import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { captureEvidence, purgeEvidence, saveEvidence } from '../../src/executor/evidence.ts';
import { createJob as createCoreJob } from '../../src/jobs/service.ts';
import { parseExecutionJobRequest } from '../../src/jobs/schemas.ts';
import { launchChromium } from '../handoff/browsers.ts';
import { userIdOf } from '../handoff/helpers.ts';
import { signedInContext } from '../helpers/oauth.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { requests, venue, waitForJob } from './helpers.ts';
import { startedTogether } from '../helpers/together.ts';

// Evidence of a failed booking (issue 12 §4): the last page's screenshot, card fields blanked, and its
// accessibility snapshot, shown to the job's owner on /bookings and to nobody else, purged after its time.
// Real Chromium, PGlite (the storage is one plain table; the browser is what these tests exercise).

const CARD_NUMBER = '4111 1111 1111 1111';
// A payment page as hostile as they come: a card number prefilled by the site, a code field named only
// by its label, a cc-exp field, and a card partner's iframe; everything painted bright red so a field
// left unblanked shows in the picture.
const PAYMENT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Pay</title>
<style>body{margin:0;background:#fff;font:16px sans-serif} input{display:block;width:300px;height:40px;margin:20px;background:#f00;color:#f00;border:0}
iframe{display:block;width:300px;height:80px;margin:20px;border:0;background:#f00}</style></head><body>
<h1>Payment</h1>
<label for="num">Card number</label><input id="num" value="${CARD_NUMBER}" autocomplete="cc-number">
<label for="code">Security code</label><input id="code" value="987">
<label for="exp">Valid until</label><input id="exp" value="12/29" autocomplete="cc-exp">
<iframe id="partner" srcdoc="<body style='margin:0;background:#f00'><input value='${CARD_NUMBER}' style='width:100%;height:60px;background:#f00'></body>"></iframe>
<p id="free" style="width:300px;height:40px;margin:20px;background:#f00">Not a card field</p>
</body></html>`;

/** The colour of the screenshot at the centre of `box` (decoded by Chromium from the JPEG itself). */
async function colourAt(page: Page, jpeg: Buffer, box: { x: number; y: number; width: number; height: number }): Promise<[number, number, number]> {
  return page.evaluate(async ({ src, x, y }) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const [r, g, b] = ctx.getImageData(x, y, 1, 1).data;
    return [r!, g!, b!] as [number, number, number];
  }, { src: `data:image/jpeg;base64,${jpeg.toString('base64')}`, x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) });
}

const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60;

describe('evidence of a failed booking', () => {
  let service: TestService;
  let browser: Browser;
  let ada: BrowserContext;
  let bob: BrowserContext;
  let adaId: number;

  before(async () => {
    [service, browser] = await startedTogether([startTestService('pglite:memory:', { WORKERS: '1' }, { sandbox: true }), launchChromium()]);
    [ada, bob] = await Promise.all([signedInContext(service, browser, 'ada@example.com'), signedInContext(service, browser, 'bob@example.com')]);
    adaId = await userIdOf(service, 'ada@example.com');
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('on a payment page every card field is blanked in the screenshot and absent from the snapshot; the rest of the page shows', async () => {
    const context = await browser.newContext({ viewport: { width: 800, height: 700 } });
    try {
      await context.route('http://pay.test/**', (route) => route.fulfill({ contentType: 'text/html', body: PAYMENT_PAGE }));
      const page = await context.newPage();
      await page.goto('http://pay.test/checkout?session=secret');
      const boxes = Object.fromEntries(await Promise.all(['#num', '#code', '#exp', '#partner', '#free'].map(async (s) => [s, (await page.locator(s).boundingBox())!] as const)));
      const evidence = await captureEvidence(page, 'pay', 10_000);
      assert.ok(evidence, 'the page was captured');
      assert.equal(evidence.url, 'http://pay.test/checkout', 'the URL is kept without its query');
      assert.equal(evidence.screenshot.subarray(0, 2).toString('hex'), 'ffd8', 'a JPEG');
      assert.ok(!page.isClosed());
      const viewer = await context.newPage();
      for (const field of ['#num', '#code', '#exp', '#partner']) {
        assert.ok(!isRed(await colourAt(viewer, evidence.screenshot, boxes[field]!)), `${field} is blanked in the screenshot`);
      }
      assert.ok(isRed(await colourAt(viewer, evidence.screenshot, boxes['#free']!)), 'what is not a card field is shown as it is');
      assert.match(evidence.snapshot, /Payment/, 'the snapshot reads the page');
      assert.ok(!evidence.snapshot.replace(/\s/g, '').includes(CARD_NUMBER.replace(/\s/g, '')), 'no card number in the snapshot');
      assert.ok(!evidence.snapshot.includes('987'), 'no card code in the snapshot');
      assert.ok(!evidence.snapshot.includes('12/29'), 'no expiry in the snapshot');
      assert.equal(await page.inputValue('#code'), '987', 'nothing was typed into the page');
    } finally {
      await context.close();
    }
  });

  test('a closed tab gives no evidence and no error', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await context.close();
    assert.equal(await captureEvidence(page, 'pay', 5_000), null);
  });

  test('a booking that ends no_availability has evidence its owner sees on /bookings; another person gets 404 exactly like a missing one', async () => {
    const parsed = parseExecutionJobRequest(requests.restaurant({ restaurant_name: venue('Sold Out') }, { allowedProviders: ['tablebook'] }));
    assert.ok(parsed.ok);
    const { job } = await createCoreJob(service.services.jobs, { kind: 'user', userId: adaId, clientId: null }, parsed.value);
    let evidenceRow: { job_id: string } | undefined;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && !evidenceRow; ) {
      evidenceRow = await service.services.db.selectFrom('job_evidence').select('job_id').where('job_id', '=', job.jobId).executeTakeFirst();
      if (!evidenceRow) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(evidenceRow, 'evidence was kept');
    const row = await service.services.db.selectFrom('jobs').select('status').where('id', '=', job.jobId).executeTakeFirstOrThrow();
    assert.equal(row.status, 'no_availability');

    const page = await ada.newPage();
    await page.goto(`${service.url}/bookings`);
    const item = page.locator(`[data-job-id="${job.jobId}"]`);
    const shot = await item.locator('[data-evidence-screenshot]').getAttribute('href');
    const snap = await item.locator('[data-evidence-snapshot]').getAttribute('href');
    assert.equal(shot, `/bookings/${job.jobId}/evidence.jpg`);
    assert.equal(snap, `/bookings/${job.jobId}/evidence.txt`);

    const image = await ada.request.get(`${service.url}${shot}`);
    assert.equal(image.status(), 200);
    assert.equal(image.headers()['content-type'], 'image/jpeg');
    assert.equal((await image.body()).subarray(0, 2).toString('hex'), 'ffd8');
    const text = await ada.request.get(`${service.url}${snap}`);
    assert.equal(text.status(), 200);
    assert.match(await text.text(), /no-availability|no availability|sold out|nothing/i, 'the snapshot shows what the site said');

    const missing = await bob.request.get(`${service.url}/bookings/00000000-0000-4000-8000-000000000000/evidence.jpg`);
    for (const url of [shot, snap]) {
      const other = await bob.request.get(`${service.url}${url}`);
      assert.equal(other.status(), 404, `${url} is not found for another person`);
      assert.equal(other.status(), missing.status());
      assert.equal(await other.text(), await missing.text());
    }
    const bobPage = await bob.newPage();
    await bobPage.goto(`${service.url}/bookings`);
    assert.equal(await bobPage.locator('[data-evidence-screenshot]').count(), 0, 'another person sees no evidence link');
    const anonymous = await browser.newContext();
    try {
      assert.equal((await anonymous.request.get(`${service.url}${shot}`)).status(), 401);
    } finally {
      await anonymous.close();
    }
  });

  test('a job made with an API key alone keeps no evidence: nobody could see it', async () => {
    const key = await service.mintKey();
    const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: requests.restaurant({ restaurant_name: venue('Sold Out') }, { allowedProviders: ['tablebook'] }) });
    assert.equal(created.status, 202, created.text);
    const done = await waitForJob(service, key, created.body.jobId, { timeoutMs: 90_000 });
    assert.equal(done.status, 'no_availability');
    assert.equal(await service.services.db.selectFrom('job_evidence').select('job_id').where('job_id', '=', created.body.jobId).executeTakeFirst(), undefined);
  });

  test('the purge removes evidence older than its retention and keeps the rest', async () => {
    const { db } = service.services;
    const make = async () => {
      const parsed = parseExecutionJobRequest(requests.restaurant({ restaurant_name: venue('Purge') }));
      assert.ok(parsed.ok);
      const { job } = await createCoreJob(service.services.jobs, { kind: 'user', userId: adaId, clientId: null }, parsed.value);
      return job.jobId;
    };
    const [old, fresh] = [await make(), await make()];
    for (const id of [old, fresh]) await saveEvidence(db, id, { providerId: 'tablebook', url: 'http://x.test/', screenshot: Buffer.from([0xff, 0xd8]), snapshot: '- heading' });
    await db.updateTable('job_evidence').set({ created_at: new Date(Date.now() - 8 * 86_400_000) }).where('job_id', '=', old).execute();
    assert.ok((await purgeEvidence(db, 7)) >= 1);
    const left = (await db.selectFrom('job_evidence').select('job_id').where('job_id', 'in', [old, fresh]).execute()).map((r) => r.job_id);
    assert.deepEqual(left, [fresh]);
  });
});
