import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { NODE_AUTH_HEADER, nodeKey, signCall, SIGNATURE_WINDOW_MS } from '../../src/cluster/node-auth.ts';
import { purgeUsedCalls } from '../../src/cluster/used-calls.ts';
import { dropSchemas } from '../../src/db/index.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';

// Signed calls to a node's internal port are single-use (src/cluster/used-calls.ts): a copy of an
// accepted call, sent again within its window, is refused exactly as a forged one is (the
// connection closed, no answer), by the node it was meant for and by any other node of the
// deployment, while every freshly signed call is still answered. No booking is held in these
// tests, so an admitted call is answered 404 (cancel) or 410 (live view): an answer at all is what
// tells that the port let it in.

type Answer = { status: number; body: string } | 'no answer';

const JOB = '00000000-0000-4000-8000-000000000000';
const CANCEL = `/internal/holds/${JOB}/cancel`;
const LIVE = `/internal/holds/${JOB}/live?screen=390x844x2`;

function cancel(base: string, auth: string): Promise<Answer> {
  return new Promise((resolve) => {
    const call = request(`${base}${CANCEL}`, { method: 'POST', agent: false, headers: { 'content-length': '0', [NODE_AUTH_HEADER]: auth } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on('error', () => resolve('no answer'));
    call.end();
  });
}

/** A WebSocket handshake, as a web node opens one to relay a person's live view: the status it is answered with. */
function handshake(base: string, auth: string): Promise<number | 'no answer'> {
  return new Promise((resolve) => {
    // A connection of its own each time: a kept-alive one the server closed after a refused upgrade would hang up on its own.
    const call = request(`${base}${LIVE}`, {
      agent: false,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), [NODE_AUTH_HEADER]: auth },
    });
    call.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    call.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 101);
    });
    call.on('error', () => resolve('no answer'));
    call.end();
  });
}

async function internalUrlOf(service: TestService): Promise<string> {
  const row = await service.services.db.selectFrom('nodes').select('internal_url').where('id', '=', service.services.executor.holds.instanceId).executeTakeFirstOrThrow();
  return row.internal_url;
}

const NOT_HELD = { status: 404, body: '{"result":null}' };

for (const backend of BACKENDS) {
  describe(`internal calls are single-use on ${backend.name}`, () => {
    let service: TestService;
    let internalUrl: string;
    let key: Buffer;
    before(async () => {
      service = await startTestService(backend.url, { WORKERS: '1' });
      internalUrl = await internalUrlOf(service);
      key = nodeKey(service.services.secretKey);
    });
    after(() => service?.close());

    test('a cancel: the first call is answered, its copy gets no answer (as a bad signature), a freshly signed one is answered', async () => {
      const signed = signCall(key, 'POST', CANCEL);
      assert.deepEqual(await cancel(internalUrl, signed), NOT_HELD);
      assert.equal(await cancel(internalUrl, signed), 'no answer', 'the replay');
      assert.equal(await cancel(internalUrl, signCall(nodeKey('x'.repeat(40)), 'POST', CANCEL)), 'no answer', 'a bad signature, for comparison');
      assert.deepEqual(await cancel(internalUrl, signCall(key, 'POST', CANCEL)), NOT_HELD);
      // Two signed back to back (within a millisecond) are two calls, not a call and its copy.
      const [first, second] = [signCall(key, 'POST', CANCEL), signCall(key, 'POST', CANCEL)];
      assert.deepEqual(await Promise.all([cancel(internalUrl, first), cancel(internalUrl, second)]), [NOT_HELD, NOT_HELD]);
    });

    test('a live-view handshake: the first is answered, its copy gets no answer, a freshly signed one is answered', async () => {
      const signed = signCall(key, 'GET', LIVE);
      assert.equal(await handshake(internalUrl, signed), 410);
      assert.equal(await handshake(internalUrl, signed), 'no answer', 'the replay');
      assert.equal(await handshake(internalUrl, signCall(nodeKey('x'.repeat(40)), 'GET', LIVE)), 'no answer', 'a bad signature, for comparison');
      assert.equal(await handshake(internalUrl, signCall(key, 'GET', LIVE)), 410);
    });

    test('copies sent all at once: exactly one is answered', async () => {
      const signed = signCall(key, 'POST', CANCEL);
      const answers = await Promise.all(Array.from({ length: 10 }, () => cancel(internalUrl, signed)));
      assert.equal(answers.filter((a) => a !== 'no answer').length, 1, JSON.stringify(answers));
    });

    test('a copy re-spelled (a leading zero in its time) is the same call, and refused', async () => {
      const signed = signCall(key, 'POST', CANCEL);
      assert.deepEqual(await cancel(internalUrl, signed), NOT_HELD);
      assert.equal(await cancel(internalUrl, signed.replace('t=', 't=0')), 'no answer');
    });

    test('a used signature is kept while a copy could be presented, and purged after', async () => {
      const db = service.services.db;
      await db.deleteFrom('node_call_signatures').execute();
      const signed = signCall(key, 'POST', CANCEL);
      assert.deepEqual(await cancel(internalUrl, signed), NOT_HELD);
      const [row] = await db.selectFrom('node_call_signatures').selectAll().execute();
      const signedAt = Number(/t=(\d+)/.exec(signed)![1]);
      assert.ok(row && row.expires_at.getTime() >= signedAt + SIGNATURE_WINDOW_MS, 'kept at least until the window ends');
      assert.equal(await purgeUsedCalls(db), 0, 'nothing is purged while it is kept');
      await db.insertInto('node_call_signatures').values({ signature: 'long-gone', expires_at: new Date(Date.now() - 1000) }).execute();
      assert.equal(await purgeUsedCalls(db), 1);
      assert.deepEqual((await db.selectFrom('node_call_signatures').select('signature').execute()).map((r) => r.signature), [row.signature]);
    });
  });
}

const postgres = BACKENDS.find((b) => b.name === 'postgres');
describe('a call accepted by one node is refused by every other (two nodes on one PostgreSQL schema)', { skip: postgres ? false : 'needs TEST_DATABASE_URL' }, () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let nodes: TestService[] = [];
  before(async () => {
    const env = { DATABASE_SCHEMA: schema, WORKERS: '1' };
    // One after the other: the first creates the schema and runs the migrations.
    nodes.push(await startTestService(postgres!.url, env));
    nodes.push(await startTestService(postgres!.url, env));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    nodes = [];
    await dropSchemas(postgres!.url, schema);
  });

  test('the signature names no node, so a copy sent to another node is a replay there too', async () => {
    const [a, b] = await Promise.all(nodes.map(internalUrlOf));
    assert.notEqual(a, b);
    const key = nodeKey(nodes[0]!.services.secretKey);
    assert.ok(key.equals(nodeKey(nodes[1]!.services.secretKey)), 'one deployment, one key');
    const signed = signCall(key, 'POST', CANCEL);
    assert.deepEqual(await cancel(a!, signed), NOT_HELD);
    assert.equal(await cancel(b!, signed), 'no answer');
    const live = signCall(key, 'GET', LIVE);
    assert.equal(await handshake(b!, live), 410);
    assert.equal(await handshake(a!, live), 'no answer');
  });
});
