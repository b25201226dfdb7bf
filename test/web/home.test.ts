import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, signedInContext } from '../helpers/oauth.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startedTogether } from '../helpers/together.ts';

// The front page a newcomer lands on after `./scripts/start`: where people find their bookings and
// developers find the endpoints.

let service: TestService;
let browser: Browser;

before(async () => {
  [service, browser] = await startedTogether([startTestService('pglite:memory:'), launchChromium()]);
});
after(async () => {
  await browser?.close();
  await service?.close();
});

test('signed out: the page says what the service is, offers sign-in back to the bookings, and names the MCP and REST addresses', async () => {
  const response = await fetch(`${service.url}/`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type')!, /^text\/html/);
  assert.match(response.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const html = await response.text();
  assert.ok(html.includes('href="/signin?return_to=%2Fbookings"'), 'sign-in comes back to the bookings');
  assert.ok(html.includes(`<code>${service.url}/api/mcp</code>`));
  assert.ok(html.includes(`<code>${service.url}/api/v1</code>`));
  assert.ok(html.includes('href="/api/v1/docs"'));
  assert.ok(!html.includes('/signout'), 'nothing to sign out of');
});

test('signed in: the page greets the person and links their bookings, connected apps and sign-out', async () => {
  const context = await signedInContext(service, browser, 'grace@example.com');
  try {
    const page = await context.newPage();
    const response = await page.goto(`${service.url}/`);
    assert.equal(response?.status(), 200);
    const text = await page.innerText('body');
    assert.ok(text.includes('grace@example.com'));
    await page.click('a[href="/bookings"]');
    await page.waitForURL(`${service.url}/bookings`);
    await page.goBack();
    await page.click('button:has-text("Sign out")');
    await page.waitForSelector('text=You are signed out');
    const after = await (await page.goto(`${service.url}/`))!.text();
    assert.ok(after.includes('/signin?return_to='), 'signed out again');
  } finally {
    await context.close();
  }
});
