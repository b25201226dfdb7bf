import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RECONNECTED, ScreenControl, TAKEN_OVER } from '../../src/handoff/control.ts';

// Which screen controls a held tab, interleaving by interleaving. The live-view tests drive the same
// logic through real sockets and a real browser; here each ordering of connect, open and close is
// set up exactly. The tab's switch between the person and automation is recorded, not performed.

function setup(switchTab: (jobId: string, userInControl: boolean) => Promise<void> = async () => {}) {
  const switches: boolean[] = [];
  const control = new ScreenControl(async (jobId, userInControl) => {
    switches.push(userInControl);
    await switchTab(jobId, userInControl);
  });
  return { control, switches, tab: {} };
}

function connection() {
  const ended: string[] = [];
  return { ended, end: (reason: string) => void ended.push(reason) };
}

describe('screen control of a held tab', () => {
  test('a second screen takes the tab when its connection opens: the first is told taken_over and may not take it back by reconnecting', async () => {
    const { control, switches, tab } = setup();
    const phone = control.claim('j', tab, 'phone-screen-0001');
    assert.equal(await control.handOver(phone), true);
    const phoneConnection = connection();
    assert.equal(control.open(phone, phoneConnection), 'controlling');

    const laptop = control.claim('j', tab, 'laptop-screen-001');
    assert.equal(await control.handOver(laptop), true);
    assert.deepEqual(phoneConnection.ended, [], 'the phone keeps the tab until the laptop\'s connection opens');
    assert.equal(control.open(laptop, connection()), 'controlling');
    assert.deepEqual(phoneConnection.ended, [TAKEN_OVER]);
    assert.equal(control.wasTakenOver(tab, 'phone-screen-0001'), true);
    assert.equal(control.wasTakenOver(tab, 'laptop-screen-001'), false);

    phone.release();
    assert.deepEqual(switches, [true, true], 'the taken-over phone leaving does not hand the tab back to automation');
    laptop.release();
    assert.deepEqual(switches, [true, true, false], 'nobody in control: automation again');
  });

  test('a handshake that never opens takes nothing: the screen in control keeps the tab', async () => {
    const { control, switches, tab } = setup();
    const phone = control.claim('j', tab, 'phone-screen-0001');
    await control.handOver(phone);
    const phoneConnection = connection();
    control.open(phone, phoneConnection);

    const failed = control.claim('j', tab, 'other-screen-0001');
    await control.handOver(failed);
    failed.release();
    assert.deepEqual(phoneConnection.ended, []);
    assert.equal(control.wasTakenOver(tab, 'phone-screen-0001'), false);
    assert.deepEqual(switches, [true, true], 'still the person\'s');

    phone.release();
    assert.deepEqual(switches, [true, true, false], 'the phone was in control: its leaving hands the tab back');
  });

  test('the same page reconnecting takes over from itself: its old connection is ended as reconnected, and it is not marked taken over', async () => {
    const { control, tab } = setup();
    const first = control.claim('j', tab, 'phone-screen-0001');
    await control.handOver(first);
    const old = connection();
    control.open(first, old);
    const again = control.claim('j', tab, 'phone-screen-0001');
    await control.handOver(again);
    assert.equal(control.open(again, connection()), 'controlling');
    assert.deepEqual(old.ended, [RECONNECTED]);
    assert.equal(control.wasTakenOver(tab, 'phone-screen-0001'), false);
  });

  test('a claim overtaken while it connects is told taken_over when it opens; one let go before it opens is told to retry', async () => {
    const { control, tab } = setup();
    const slow = control.claim('j', tab, 'slow-screen-00001');
    await control.handOver(slow);
    const fast = control.claim('j', tab, 'fast-screen-00001');
    await control.handOver(fast);
    assert.equal(control.open(fast, connection()), 'controlling');
    assert.equal(control.open(slow, connection()), 'taken_over');

    const late = control.claim('k', tab, 'late-screen-00001');
    await control.handOver(late);
    late.release();
    assert.equal(control.open(late, connection()), 'retry');
  });

  test('a client gone while the tab was being handed over gets nothing, and the tab goes back to automation', async () => {
    let landed!: () => void;
    const { control, switches, tab } = setup((_jobId, userInControl) => (userInControl ? new Promise<void>((resolve) => (landed = resolve)) : Promise.resolve()));
    const claim = control.claim('j', tab, null);
    const handedOver = control.handOver(claim);
    claim.release();
    landed();
    assert.equal(await handedOver, false);
    assert.deepEqual(switches, [true, false, false], 'released (false), then the switch that landed late is undone (false)');
  });

  test('a switch that fails lets the claim go', async () => {
    const { control, tab } = setup(async (_jobId, userInControl) => {
      if (userInControl) throw new Error('tab closed');
    });
    const claim = control.claim('j', tab, null);
    await assert.rejects(control.handOver(claim), /tab closed/);
    assert.equal(claim.released, true);
  });
});
