import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { confirmationCode } from '../../src/providers/generic/dom/confirmation.ts';
import type { Snapshot } from '../../src/providers/generic/dom/snapshot.ts';

// The confirmation code read from a page after the person pays, from its words alone (no
// schema.org data): codes with digits or dashes anywhere after their label, all-letter airline
// PNRs only right after the label's colon, and never a status word.

function page(title: string, text: string): Snapshot {
  return {
    url: 'https://example.test/done', title, text, headings: [title], alerts: [], forms: [], fields: [], controls: [],
    dialogs: [], frames: [], jsonld: [], microdata: [], pairs: [], idleItems: {}, passwordField: false, lines: [text], lang: 'en',
  };
}

describe('the confirmation code read from the page', () => {
  test('a code with digits or a dash', () => {
    assert.equal(confirmationCode(page('Booking Confirmed', 'Your booking reference is TB-7KQ2XM.'), false), 'TB-7KQ2XM');
    assert.equal(confirmationCode(page('Thank you', 'Confirmation number: 40417788'), false), '40417788');
  });

  test('an all-letter PNR right after its label (any draw of letters, such as FXXVHM)', () => {
    assert.equal(confirmationCode(page('Booking Confirmed', 'Your flight is booked. Booking reference (PNR): FXXVHM Outbound LHR to JFK'), false), 'FXXVHM');
    assert.equal(confirmationCode(page('Booking Confirmed', 'PNR: QWERTY'), false), 'QWERTY');
    assert.equal(confirmationCode(page('Order Confirmed', 'Thank you — order confirmed. Your order code: EGQWERTYUP'), false), 'EGQWERTYUP');
  });

  test('a code with digits wins over an all-letter word met first', () => {
    assert.equal(confirmationCode(page('Booking Confirmed', 'Booking: PARIS. Confirmation number: AB12CD'), false), 'AB12CD');
  });

  test('status words and words without a colon are not codes', () => {
    assert.equal(confirmationCode(page('Booking Confirmed', 'Booking: CONFIRMED'), false), null);
    assert.equal(confirmationCode(page('Booking Confirmed', 'Your booking is CONFIRMED today'), false), null);
    assert.equal(confirmationCode(page('Booking Confirmed', 'Your reservation is READY'), false), null);
  });

  test('a page still showing the card-code field, or not saying it is done, confirms nothing', () => {
    assert.equal(confirmationCode(page('Booking Confirmed', 'PNR: QWERTY'), true), null);
    assert.equal(confirmationCode(page('Payment', 'Booking reference: TB-7KQ2XM'), false), null);
  });
});
