import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { operatorOf } from '../../src/operator/access.ts';

// OPERATOR_EMAILS: read once at start like every setting, a bad item stopping the process with a
// message naming the variable; and who is an operator by it.

test('OPERATOR_EMAILS: a comma-separated list, trimmed and lower-cased; unset is nobody', () => {
  assert.deepEqual(loadConfig({}).OPERATOR_EMAILS, []);
  assert.deepEqual(loadConfig({ OPERATOR_EMAILS: ' Ops@Example.com ,lead@example.com,' }).OPERATOR_EMAILS, ['ops@example.com', 'lead@example.com']);
});

test('OPERATOR_EMAILS: an item that is not an email address stops the start, named', () => {
  for (const bad of ['ops', 'ops@example.com;lead@example.com', '<ops@example.com>', 'a b@example.com']) {
    assert.throws(() => loadConfig({ OPERATOR_EMAILS: bad }), (error: unknown) => error instanceof ConfigError && /OPERATOR_EMAILS: "[^"]*" is not an email address/.test(error.message), bad);
  }
});

test('an operator is a signed-in user whose email is listed, in any case; no email is no operator', () => {
  const list = ['ops@example.com'];
  assert.deepEqual(operatorOf(list, { id: 7, email: 'OPS@example.com' }), { userId: 7, email: 'ops@example.com' });
  assert.equal(operatorOf(list, { id: 8, email: 'bob@example.com' }), null);
  assert.equal(operatorOf(list, { id: 9, email: null }), null);
  assert.equal(operatorOf([], { id: 7, email: 'ops@example.com' }), null);
});
