import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { BrowserPool, openTab } from '../../src/browser/pool.ts';
import { EgressProxy, refusedNavigations } from '../../src/browser/egress.ts';
import { isPublicAddress } from '../../src/net/address-policy.ts';
import { attempt } from '../generic/harness.ts';
import { until } from '../helpers/wait.ts';

// The executor's browser reaches only the public web (issue 26, item 1). Two loopback servers stand
// in for the two sides: a "public" site on 127.0.0.2 (the policy under test treats that one address
// as public, every other address by the real rules) and an "internal" one on 127.0.0.1, which counts
// every request and WebSocket that reaches it. Names resolve through a resolver of the test's:
// shop.test → 127.0.0.2, rebind.test → 127.0.0.1 (a name that points inside at booking time). The
// same pages, opened without the proxy (development), do reach the internal server: the refusals
// below are the proxy's doing.

const PUBLIC = '127.0.0.2';

describe('the browser reaches only the public web', { timeout: 120_000 }, () => {
  let internal: http.Server;
  let site: http.Server;
  let proxy: EgressProxy;
  let pool: BrowserPool;
  let bare: Browser;
  let hits: string[] = [];
  let I = 0;
  let P = 0;

  before(async () => {
    internal = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' }).end('<h1>Internal admin</h1><p>secret</p>');
    });
    internal.on('upgrade', (req, socket) => {
      hits.push(`ws ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    I = (internal.address() as AddressInfo).port;
    const inside = `http://127.0.0.1:${I}`;
    const pages: Record<string, string> = {
      '/ok': '<h1>Public page</h1>',
      '/iframe': `<h1>Frame</h1><iframe src="${inside}/frame"></iframe>`,
      '/image': `<h1>Image</h1><img src="${inside}/pixel.png">`,
      '/fetch': `<h1>Fetch</h1><script>fetch('${inside}/api').then(() => document.title = 'fetched', () => document.title = 'refused')</script>`,
      '/ws': `<h1>Socket</h1><script>const w = new WebSocket('ws://127.0.0.1:${I}/socket'); w.onerror = () => document.title = 'refused'; w.onopen = () => document.title = 'open'</script>`,
    };
    site = http.createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      if (path === '/redirect') return void res.writeHead(302, { location: `${inside}/internal` }).end();
      if (path === '/rebind') return void res.writeHead(302, { location: `http://rebind.test:${I}/internal` }).end();
      if (pages[path]) return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>t</title>${pages[path]}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => site.listen(0, PUBLIC, r));
    P = (site.address() as AddressInfo).port;
    proxy = await EgressProxy.start({
      allowed: (address) => address === PUBLIC || isPublicAddress(address),
      resolve: async (host) => ({ 'shop.test': [PUBLIC], 'rebind.test': ['127.0.0.1'] } as Record<string, string[]>)[host] ?? [],
    });
    pool = new BrowserPool({ chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', egress: proxy });
    bare = await pool.browser();
  });
  after(async () => {
    await pool?.close();
    await proxy?.close();
    await new Promise((r) => site?.close(r));
    await new Promise((r) => internal?.close(r));
  });

  const shop = (path: string) => `http://shop.test:${P}${path}`;

  test('a public page loads through the proxy, by name', async () => {
    const context = await pool.newContext();
    const page = await context.newPage();
    await page.goto(shop('/ok'));
    assert.equal(await page.locator('h1').innerText(), 'Public page');
    await context.close();
  });

  test('a redirect, an iframe, an image, a fetch, a WebSocket and a name resolving inside are all refused; the internal server sees nothing', async () => {
    hits = [];
    const context = await pool.newContext();
    const page = await context.newPage();
    // Plain http: the proxy answers in the internal server's place (a 403 of its own); https would be a refused tunnel.
    for (const path of ['/redirect', '/rebind']) {
      const answer = await page.goto(shop(path));
      assert.equal(answer?.status(), 403, path);
      assert.match(await page.locator('body').innerText(), /^Refused by the booking service's egress policy: (127\.0\.0\.1|rebind\.test) is not on the public internet\.$/);
    }
    for (const path of ['/iframe', '/image']) await page.goto(shop(path), { waitUntil: 'load' });
    await page.goto(shop('/fetch'));
    await until('the fetch failed', async () => (await page.title()) === 'refused', 10_000);
    await page.goto(shop('/ws'));
    await until('the socket failed', async () => (await page.title()) === 'refused', 10_000);
    assert.deepEqual(hits, [], 'nothing reached the internal server');
    assert.deepEqual(refusedNavigations(context).sort(), ['127.0.0.1', `rebind.test (127.0.0.1)`].sort(), 'the page and the frame navigations refused, by host');
    await context.close();
  });

  test('the spare (the next job\'s context made ahead, its tab open) goes through the proxy as well', async () => {
    hits = [];
    pool.keepSpare();
    const context = await pool.newContext();
    const [tab] = context.pages();
    assert.ok(tab, 'a spare: its tab open before any try');
    const page = await openTab(context);
    assert.equal(page, tab);
    const answer = await page.goto(shop('/redirect'));
    assert.equal(answer?.status(), 403);
    assert.deepEqual(hits, [], 'nothing reached the internal server');
    assert.deepEqual(refusedNavigations(context), ['127.0.0.1']);
    await context.close();
  });

  test('without the proxy (development), the same pages do reach the internal server', async () => {
    hits = [];
    const context = await bare.newContext();
    const page = await context.newPage();
    await page.goto(`http://${PUBLIC}:${P}/redirect`);
    await page.goto(`http://${PUBLIC}:${P}/image`, { waitUntil: 'load' });
    await until('the internal server was reached', () => hits.length >= 2, 10_000);
    await context.close();
  });

  test('a provider whose start page redirects inside fails its attempt as blocked_address, naming the host, never the page', async () => {
    hits = [];
    const context = await pool.newContext();
    const o = await attempt(context, { id: 'shop', name: 'Shop', scenario: 'restaurant', startUrl: shop('/redirect') }, { scenario: 'restaurant', venue: 'Shop', city: 'Porto', date: '2030-06-10', time: '19:30', partySize: 2 });
    assert.equal(o.kind, 'failed');
    if (o.kind !== 'failed') return;
    assert.equal(o.failure.kind, 'blocked_address');
    assert.match(o.failure.message, /^the site led the browser to 127\.0\.0\.1, which is not on the public internet: the egress policy refused it$/);
    assert.doesNotMatch(JSON.stringify(o), /secret|Internal admin/);
    assert.deepEqual(hits, []);
    await context.close();
  });
});
