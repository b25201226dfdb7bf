import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { NODE_AUTH_HEADER, nodeKey, signCall, verifyCall, SIGNATURE_WINDOW_MS } from '../../src/cluster/node-auth.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// A node's internal port (src/cluster): only another node of the same deployment gets an answer
// from it, and a node that drains says so to the load balancer. The relay itself, between
// separate processes on PostgreSQL, is test/cluster/multi-node.test.ts.

/** A POST to the internal port: its status and body, or 'no answer' when the connection is closed without one. */
function post(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string } | 'no answer'> {
  return new Promise((resolve) => {
    const call = request(url, { method: 'POST', headers: { 'content-length': '0', ...headers } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on('error', () => resolve('no answer'));
    call.end();
  });
}

describe('node-to-node signatures', () => {
  const key = nodeKey('a'.repeat(40));
  const path = '/internal/holds/00000000-0000-4000-8000-000000000000/cancel';

  test('a signature is good for its own call, within its window, under its own key', () => {
    const now = Date.now();
    const header = signCall(key, 'POST', path, now);
    assert.ok(verifyCall(key, 'POST', path, header, now));
    assert.ok(verifyCall(key, 'POST', path, header, now + SIGNATURE_WINDOW_MS - 1));
    assert.equal(verifyCall(key, 'POST', path, header, now + SIGNATURE_WINDOW_MS + 1), null, 'a copied call is useless after the window');
    assert.equal(verifyCall(key, 'GET', path, header, now), null, 'another method');
    assert.equal(verifyCall(key, 'POST', `${path}?x=1`, header, now), null, 'another path');
    assert.equal(verifyCall(nodeKey('b'.repeat(40)), 'POST', path, header, now), null, 'another deployment (SECRET_KEY)');
    assert.equal(verifyCall(key, 'POST', path, undefined, now), null);
    assert.equal(verifyCall(key, 'POST', path, 't=1,v1=short', now), null);
  });

  test('calls of one path signed back to back by one process are distinct signatures, never a replay of each other', () => {
    const headers = Array.from({ length: 50 }, () => signCall(key, 'POST', path));
    const now = Date.now();
    const signatures = headers.map((h) => verifyCall(key, 'POST', path, h, now + 50)?.signature);
    assert.ok(signatures.every((s) => s !== undefined));
    assert.equal(new Set(signatures).size, headers.length);
  });

  test('every spelling of one signature names the same call, so a re-spelled copy is still a copy', () => {
    const now = Date.now();
    const header = signCall(key, 'POST', path, now);
    const { signature } = verifyCall(key, 'POST', path, header, now)!;
    // base64url's last character of a 32-byte value carries two unread bits; a time may gain leading zeros.
    const last = header.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = header.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
    const padded = header.replace('t=', 't=00');
    for (const variant of [respelled, padded]) {
      assert.notEqual(variant, header);
      assert.equal(verifyCall(key, 'POST', path, variant, now)?.signature, signature, variant);
    }
  });

  test('the key is derived from SECRET_KEY, never the secret itself', () => {
    const secret = 'c'.repeat(40);
    assert.notEqual(nodeKey(secret).toString('utf8'), secret);
    assert.equal(nodeKey(secret).length, 32);
  });
});

describe('internal port configuration', () => {
  test('defaults: loopback, a port the OS picks, the drain as long as a hold', () => {
    const config = loadConfig({}, { HOLD_SECONDS: '600' });
    assert.equal(config.INTERNAL_HOST, '127.0.0.1');
    assert.equal(config.INTERNAL_PORT, 0);
    assert.equal(config.INTERNAL_ADVERTISE_URL, undefined);
    assert.equal(config.DRAIN_SECONDS, 600);
  });

  test('an address other nodes cannot reach is refused at start, naming the variable', () => {
    assert.throws(() => loadConfig({}, { INTERNAL_HOST: '0.0.0.0' }), (error: Error) => error instanceof ConfigError && /INTERNAL_HOST: .*INTERNAL_ADVERTISE_URL/.test(error.message));
    assert.throws(() => loadConfig({}, { INTERNAL_ADVERTISE_URL: 'http://10.0.0.5:7000' }), (error: Error) => error instanceof ConfigError && /INTERNAL_ADVERTISE_URL: needs a fixed INTERNAL_PORT/.test(error.message));
    assert.throws(() => loadConfig({}, { INTERNAL_ADVERTISE_URL: 'http://10.0.0.5:7000/path', INTERNAL_PORT: '7000' }), /INTERNAL_ADVERTISE_URL: must be an origin/);
    assert.throws(() => loadConfig({}, { INTERNAL_ADVERTISE_URL: 'ftp://10.0.0.5', INTERNAL_PORT: '7000' }), /INTERNAL_ADVERTISE_URL/);
    assert.throws(() => loadConfig({}, { DRAIN_SECONDS: '-1' }), /DRAIN_SECONDS/);
    const ok = loadConfig({}, { INTERNAL_HOST: '0.0.0.0', INTERNAL_PORT: '7000', INTERNAL_ADVERTISE_URL: 'http://10.0.0.5:7000' });
    assert.equal(ok.INTERNAL_ADVERTISE_URL, 'http://10.0.0.5:7000');
  });
});

describe('a node with workers (PGlite)', () => {
  let service: TestService;
  let internalUrl: string;

  before(async () => {
    service = await startTestService('pglite:memory:', { WORKERS: '1' });
    const node = await service.services.db.selectFrom('nodes').selectAll().executeTakeFirstOrThrow();
    assert.equal(node.id, service.services.executor.holds.instanceId, 'the node is named as jobs name their holder');
    assert.equal(node.role, 'serve');
    internalUrl = node.internal_url;
  });
  after(async () => {
    await service?.close();
  });

  test('publishes a loopback internal address, which answers nothing to a caller without a valid signature', async () => {
    assert.match(internalUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    const path = '/internal/holds/00000000-0000-4000-8000-000000000000/cancel';
    const key = nodeKey(service.services.secretKey);
    assert.equal(await post(`${internalUrl}${path}`), 'no answer', 'unsigned');
    assert.equal(await post(`${internalUrl}${path}`, { [NODE_AUTH_HEADER]: signCall(nodeKey('x'.repeat(40)), 'POST', path) }), 'no answer', 'signed under another key');
    assert.equal(await post(`${internalUrl}${path}`, { [NODE_AUTH_HEADER]: signCall(key, 'POST', path, Date.now() - 2 * SIGNATURE_WINDOW_MS) }), 'no answer', 'an old signature');
    assert.equal(await post(`${internalUrl}/internal/nothing`, { [NODE_AUTH_HEADER]: signCall(key, 'POST', path) }), 'no answer', 'a signature of another path');
    // Signed: the node answers (it holds no such booking).
    const signed = await post(`${internalUrl}${path}`, { [NODE_AUTH_HEADER]: signCall(key, 'POST', path) });
    assert.deepEqual(signed, { status: 404, body: '{"result":null}' });
  });

  test('draining: /readyz answers 503, the node says so in its row', async () => {
    assert.equal((await fetch(`${service.url}/readyz`)).status, 200);
    await service.drain();
    const ready = await fetch(`${service.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: 'draining', reason: 'the node is shutting down' });
    const node = await service.services.db.selectFrom('nodes').select('draining').executeTakeFirstOrThrow();
    assert.equal(node.draining, true);
  });
});
