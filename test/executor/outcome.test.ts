import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Failure } from '../../src/executor/attempt.ts';
import type { FailureKind } from '../../src/driver/failures.ts';
import { finalStatus } from '../../src/executor/outcome.ts';

// The job's status once every provider has failed: pure function, no browser.

const failure = (provider: string, kind: FailureKind): Failure => ({ provider, kind, message: `${provider} ${kind}`, step: 'search', url: `http://${provider}.localhost/x` });
const statusOf = (...kinds: FailureKind[]) => finalStatus(kinds.map((k, i) => failure(`p${i}`, k)));

describe('final status when no provider booked', () => {
  test('every provider conclusive: a login wall anywhere is needs_login, else a CAPTCHA is captcha, else no_availability', () => {
    assert.deepEqual(statusOf('no_availability', 'no_availability').status, 'no_availability');
    assert.equal(statusOf('no_availability').status, 'no_availability');
    assert.equal(statusOf('login_wall', 'login_wall').status, 'needs_login');
    assert.equal(statusOf('no_availability', 'login_wall').status, 'needs_login', 'signing in could open availability');
    assert.equal(statusOf('login_wall', 'captcha').status, 'needs_login');
    assert.equal(statusOf('captcha', 'no_availability').status, 'captcha');
    assert.equal(statusOf('captcha').status, 'captcha');
    assert.deepEqual(statusOf('no_availability', 'login_wall').reason, 'login_wall');
  });

  test('any provider that could not be asked makes it an error, described by that failure', () => {
    const mixed = finalStatus([failure('tablebook', 'outage'), failure('dinenow', 'no_availability')]);
    assert.equal(mixed.status, 'error');
    assert.equal(mixed.reason, 'provider_outage');
    assert.equal(mixed.cause?.provider, 'tablebook');
    const after = finalStatus([failure('tablebook', 'no_availability'), failure('dinenow', 'transient')]);
    assert.deepEqual([after.status, after.reason, after.cause?.provider], ['error', 'transient_errors', 'dinenow']);
    assert.deepEqual([statusOf('login_wall', 'unexpected_page').status, statusOf('login_wall', 'unexpected_page').reason], ['error', 'unexpected_page']);
    assert.equal(statusOf('captcha', 'error').reason, 'error');
    // With several, the last one that could not be asked describes it.
    const two = finalStatus([failure('a', 'outage'), failure('b', 'unexpected_page'), failure('c', 'no_availability')]);
    assert.deepEqual([two.reason, two.cause?.provider], ['unexpected_page', 'b']);
  });

  test('nobody tried: error, no_providers', () => {
    assert.deepEqual(finalStatus([]), { status: 'error', reason: 'no_providers', cause: undefined });
  });
});
