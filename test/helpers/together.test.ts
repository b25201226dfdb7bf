import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startedTogether } from './together.ts';

// A before() hook that starts a service and a browser together must not leave the service running
// when the browser fails to start: nothing else would ever close it.

test('startedTogether: all started, in order', async () => {
  const [a, b] = await startedTogether([Promise.resolve(1), Promise.resolve('two')]);
  assert.equal(a, 1);
  assert.equal(b, 'two');
});

test('startedTogether: one fails to start, the others that did are closed and its error is thrown', async () => {
  const closed: string[] = [];
  const started = (name: string) => Promise.resolve({ name, close: async () => void closed.push(name) });
  const failure = new Error('the browser did not start');
  await assert.rejects(startedTogether([started('service'), Promise.reject(failure), started('site')]), (error) => error === failure);
  assert.deepEqual(closed.sort(), ['service', 'site']);
});
