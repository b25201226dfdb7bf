import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isCardCodeField, scanRequest } from '../../sandbox/engine/cardcodes.ts';
import { CORPUS, PROVIDERS, startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { assertNoCodeStored, rawRequest } from './drivers.ts';

describe('card-code detector', () => {
  test('recognises card-code field names', () => {
    for (const name of ['cvc', 'CVV', 'cvv2', 'cvc2', 'csc', 'cid', 'security_code', 'securityCode', 'SecurityCode', 'card_code', 'cardCode',
      'verification', 'card_cvc', 'cardCvc', 'cc-csc', 'payment[cvc]', 'payment[card][security_code]', 'payment.card.cvv', 'card_security_code', 'x_card_verification_value']) {
      assert.ok(isCardCodeField(name), name);
    }
  });
  test('ignores ordinary fields', () => {
    for (const name of ['email', 'given_name', 'password', 'postcode', 'promo_code', 'tel', 'city', 'decide', 'incident', 'session', 'tiles', 'return_to', 'slot', 'passport_number', 'f7']) {
      assert.ok(!isCardCodeField(name), name);
    }
  });
  test('page-specific odd names', () => {
    assert.ok(isCardCodeField('f7', new Set(['f7'])));
    assert.ok(isCardCodeField('F7', new Set(['f7'])));
  });
  test('scans query, urlencoded, JSON (any depth, any content type), text/plain and multipart', () => {
    const none = new URLSearchParams();
    const ex = new Set<string>();
    assert.deepEqual(scanRequest(new URLSearchParams('cvc=123&x=1'), Buffer.alloc(0), '', ex), ['cvc']);
    assert.deepEqual(scanRequest(new URLSearchParams('cvc='), Buffer.alloc(0), '', ex), [], 'empty values are not codes');
    assert.deepEqual(scanRequest(none, Buffer.from('a=1&security_code=123'), 'application/x-www-form-urlencoded', ex), ['security_code']);
    assert.deepEqual(scanRequest(none, Buffer.from(JSON.stringify({ a: [{ b: { cardCvv: 123 } }] })), 'text/plain;charset=UTF-8', ex), ['a[0].b.cardCvv']);
    assert.deepEqual(scanRequest(none, Buffer.from(JSON.stringify({ data: JSON.stringify({ csc: '1' }) })), 'application/json', ex), ['data.csc']);
    assert.deepEqual(scanRequest(none, Buffer.from('name=Ada\r\ncvv=123\r\n'), 'text/plain', ex), ['cvv']);
    const mp = '--XyZ\r\nContent-Disposition: form-data; name="holder"\r\n\r\nAda\r\n--XyZ\r\nContent-Disposition: form-data; name="cvc"\r\n\r\n123\r\n--XyZ--\r\n';
    assert.deepEqual(scanRequest(none, Buffer.from(mp), 'multipart/form-data; boundary=XyZ', ex), ['cvc']);
  });
});

describe('sandbox server (Node, explicit Host header)', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });
  const host = (id: string) => `${id}.localhost:${sandbox.port}`;

  test('PROVIDERS: 8 providers, one first choice per scenario', () => {
    assert.deepEqual(PROVIDERS.map((p) => p.id), ['tablebook', 'dinenow', 'staysearch', 'roomly', 'skyfare', 'jetdeck', 'tixhub', 'eventgo']);
    for (const sc of ['restaurant', 'hotel', 'flight', 'activity']) {
      const ps = PROVIDERS.filter((p) => p.scenario === sc);
      assert.equal(ps.length, 2);
      assert.equal(ps.filter((p) => p.firstChoice).length, 1);
    }
    assert.deepEqual(PROVIDERS.filter((p) => p.firstChoice).map((p) => p.id), ['tablebook', 'staysearch', 'skyfare', 'tixhub']);
  });

  test('origin() and host routing', async () => {
    assert.equal(sandbox.origin('tablebook'), `http://tablebook.localhost:${sandbox.port}`);
    assert.equal(sandbox.origin('payments'), `http://payments.localhost:${sandbox.port}`);
    const titles = new Set<string>();
    for (const p of PROVIDERS) {
      const r = await rawRequest(sandbox.port, host(p.id), '/');
      assert.equal(r.status, 200, p.id);
      assert.match(r.body, new RegExp(p.name));
      titles.add(/<title>([^<]*)<\/title>/.exec(r.body)?.[1] ?? '');
      const cookie = String(r.headers['set-cookie']);
      assert.match(cookie, /HttpOnly/);
    }
    assert.equal(titles.size, PROVIDERS.length);
    assert.equal((await rawRequest(sandbox.port, host('adversarial'), '/')).status, 200);
  });

  test('unknown hosts get 404', async () => {
    assert.equal((await rawRequest(sandbox.port, host('nope'), '/')).status, 404);
    assert.equal((await rawRequest(sandbox.port, `localhost:${sandbox.port}`, '/')).status, 404);
    assert.equal((await rawRequest(sandbox.port, `127.0.0.1:${sandbox.port}`, '/')).status, 404);
  });

  test('the two providers of a scenario use different markup', async () => {
    const ids = async (id: string) => new Set([...(await rawRequest(sandbox.port, host(id), '/')).body.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
    for (const [a, b] of [['tablebook', 'dinenow'], ['staysearch', 'roomly'], ['skyfare', 'jetdeck'], ['tixhub', 'eventgo']] as const) {
      const [x, y] = [await ids(a), await ids(b)];
      const shared = [...x].filter((i) => y.has(i));
      assert.equal(shared.length, 0, `${a} and ${b} share ids: ${shared.join(', ')}`);
    }
  });

  test('records card codes from any route and body shape, never the value', async () => {
    const before = sandbox.cardCodesReceived().length;
    await rawRequest(sandbox.port, host('tablebook'), '/does/not/exist?cvv=4821');
    await rawRequest(sandbox.port, host('roomly'), '/api', { method: 'POST', body: JSON.stringify({ pay: { card: { cvc: '4821' } } }), headers: { 'content-type': 'application/json' } });
    await rawRequest(sandbox.port, host('nope'), '/x', { method: 'POST', body: 'card_code=4821', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await rawRequest(sandbox.port, host('adversarial'), '/odd-label', { method: 'POST', body: 'f7=4821', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await rawRequest(sandbox.port, host('tablebook'), '/x', { method: 'POST', body: 'f7=4821&cvc=', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const got = sandbox.cardCodesReceived().slice(before);
    assert.deepEqual(got.map((r) => [r.host, r.path, r.field]), [
      [host('tablebook'), '/does/not/exist', 'cvv'],
      [host('roomly'), '/api', 'pay.card.cvc'],
      [host('nope'), '/x', 'card_code'],
      [host('adversarial'), '/odd-label', 'f7'],
    ]);
    assertNoCodeStored(sandbox, '4821');
  });

  async function searchHtml(id: string, body: Record<string, string>): Promise<string> {
    const r = await rawRequest(sandbox.port, host(id), '/search', { method: 'POST', body: new URLSearchParams(body).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(r.status, 303);
    const cookie = String(r.headers['set-cookie']).split(';')[0] ?? '';
    const page = await rawRequest(sandbox.port, host(id), String(r.headers.location), { headers: { cookie } });
    assert.equal(page.status, 200);
    return page.body;
  }

  test('normal searches list the requested time as available, plus others; prices are deterministic', async () => {
    const restaurant = { restaurant_name: 'Casa Azul', city: 'Lisbon', date: '2031-05-16', time: '19:00', party_size: '2' };
    const slots = [...(await searchHtml('tablebook', restaurant)).matchAll(/data-slot="([^"]+)" data-available="([^"]+)"/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(slots, [['18:30', 'true'], ['19:00', 'true'], ['19:15', 'true'], ['19:45', 'true']]);
    const flight = { origin: 'Lisbon', destination: 'Berlin', date: '2031-05-16', passengers: '1', airline: '', departure_time: '10:00', cabin: '' };
    const deps = [...(await searchHtml('jetdeck', flight)).matchAll(/data-dep="([^"]+)" data-status="([^"]+)"/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(deps, [['07:00', 'available'], ['10:00', 'available'], ['12:30', 'available'], ['15:30', 'available']]);
    const hotel = { hotel_name: 'Hotel Miramar', city: 'Porto', check_in: '2031-05-16', check_out: '2031-05-19', adults: '2', room_preference: '' };
    const rooms = async () => /<table id="ss-rooms">[\s\S]*<\/table>/.exec(await searchHtml('staysearch', hotel))?.[0];
    const first = await rooms();
    assert.ok(first?.includes('$'));
    assert.equal(await rooms(), first);
  });

  test('POST/redirect/GET with server-side validation', async () => {
    const bad = await rawRequest(sandbox.port, host('dinenow'), '/find', { method: 'POST', body: 'restaurant_name=X&city=Y&date=2031-13-40&time=25:00&party_size=0', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /must be a date/);
    const ok = await rawRequest(sandbox.port, host('dinenow'), '/find', { method: 'POST', body: 'restaurant_name=X&city=Y&date=2031-05-16&time=19:00&party_size=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(ok.status, 303);
    assert.match(String(ok.headers.location), /^\/find\/[a-z0-9]+$/);
  });

  test('close() resolves promptly even with an open WebSocket and keep-alive connections', async () => {
    const other = await startSandbox();
    const socket = net.connect(other.port, '127.0.0.1');
    const upgraded = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
    socket.write(`GET /ws HTTP/1.1\r\nHost: adversarial.localhost:${other.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    assert.match(await upgraded, /101 Switching Protocols[\s\S]*Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/);
    const t = Date.now();
    await other.close();
    assert.ok(Date.now() - t < 1000);
    socket.destroy();
  });

  test('sandbox/main.ts runs standalone and prints the origins', async () => {
    const main = fileURLToPath(new URL('../../sandbox/main.ts', import.meta.url));
    const child = spawn(process.execPath, [main], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no output: ${out}`)), 10_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('payments')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      for (const p of PROVIDERS) assert.match(out, new RegExp(`http://${p.id}\\.localhost:\\d+/`));
      for (const c of CORPUS) assert.match(out, new RegExp(`http://${c.id}\\.localhost:\\d+/`));
    } finally {
      child.kill('SIGTERM');
    }
  });
});
