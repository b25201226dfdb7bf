import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FailureThrottle } from '../../src/oauth/throttle.ts';

// The client-authentication failure throttle on its own: anyone can add entries to it (any client
// id, from any address), so its memory is capped without letting a flood free a throttled pair.

describe('client authentication failure throttle', () => {
  test('a pair is refused after `limit` failures until its window ends', () => {
    const throttle = new FailureThrottle(3, 60_000);
    for (let i = 0; i < 3; i++) throttle.fail('client\u0000addr', 1_000);
    assert.equal(throttle.blockedFor('client\u0000addr', 1_000), 60);
    assert.equal(throttle.blockedFor('other\u0000addr', 1_000), 0);
    assert.equal(throttle.blockedFor('client\u0000addr', 61_000), 0);
  });

  test('it never remembers more pairs than its cap, and a flood of one-off failures does not free a throttled pair', () => {
    const throttle = new FailureThrottle(3, 60_000, 100);
    for (let i = 0; i < 3; i++) throttle.fail('target\u0000addr', 0);
    for (let i = 0; i < 10_000; i++) {
      throttle.fail(`flood-${i}\u0000addr`, 10);
      assert.ok(throttle.size <= 100, `size ${throttle.size} after ${i + 1}`);
    }
    assert.ok(throttle.blockedFor('target\u0000addr', 10) > 0);
  });

  test('pairs whose window has ended go first; when every pair is throttled, the oldest goes', () => {
    const throttle = new FailureThrottle(1, 60_000, 10);
    for (let i = 0; i < 10; i++) throttle.fail(`old-${i}`, 0);
    // All ten are blocking (limit 1); a minute later they have expired and make room for new ones.
    for (let i = 0; i < 10; i++) throttle.fail(`new-${i}`, 61_000);
    assert.ok(throttle.size <= 10);
    for (let i = 0; i < 10; i++) assert.ok(throttle.blockedFor(`new-${i}`, 61_000) > 0, `new-${i}`);
    // Every entry blocking and none expired: the oldest give way, the newest stay.
    throttle.fail('newest', 62_000);
    assert.ok(throttle.size <= 10);
    assert.ok(throttle.blockedFor('newest', 62_000) > 0);
    assert.equal(throttle.blockedFor('new-0', 62_000), 0);
  });
});
