import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countryOption, optionFor, splitPhone } from '../../src/providers/generic/dom/fields.ts';
import { readHeld, withIsoDates } from '../../src/providers/generic/dom/held.ts';
import { answerFor } from '../../src/providers/generic/dom/overlays.ts';
import { noneMessage } from '../../src/providers/generic/dom/outcomes.ts';
import type { ControlInfo, FieldInfo, Snapshot } from '../../src/providers/generic/dom/snapshot.ts';

// General rules of the page-reading strategy that need no browser: what a summary without labels
// holds, which answer an upgrade offer gets, how a phone number is split for a form that asks its
// calling code apart, and which option of a country list a code means.

function page(lines: string[], headings: string[], extra: Partial<Snapshot> = {}): Snapshot {
  return {
    url: 'https://example.test/checkout', title: 'Checkout', text: lines.join(' '), headings, alerts: [], forms: [], fields: [], controls: [],
    dialogs: [], frames: [], jsonld: [], microdata: [], pairs: [], idleItems: {}, passwordField: false, lines, lang: 'en', ...extra,
  };
}

function list(options: Array<[string, string]>, tag = 'select'): FieldInfo {
  return {
    sel: '#f', tag, type: tag, name: 'f', autocomplete: '', label: '', labelFrom: '', hint: '', text: '', placeholder: '', value: '', required: false, disabled: false, readOnly: false,
    visible: true, checked: false, options: options.map(([value, text]) => ({ value, text, disabled: false })), form: 0, region: 'main', card: false,
    invalid: false, flagged: false, validationMessage: '', stepper: null, inDialog: -1, combobox: false, expanded: '',
  };
}

function control(text: string, inDialog: number): ControlInfo {
  return { sel: `#${text.replace(/\W/g, '')}`, tag: 'button', type: 'button', text, name: '', value: '', role: '', form: -1, region: 'main', disabled: false, visible: true, submits: false, inDialog, item: text, itemSel: '', itemParent: '', itemTag: 'button', expanded: '', haspopup: '', selected: '', pressed: '' };
}

describe('what a summary holds when nothing labels it', () => {
  test('the first line under the summary\'s heading names what is booked, up to its date; headings of the form\'s sections do not', () => {
    const s = page(['Secure checkout', 'Trip summary', 'LHR to JFK · Tuesday, 15 December 2026', 'Northwind Airways NA 168 · departs 6:00 AM, arrives 8:15 AM · Economy', 'Travelers', 'Travelers: 1', 'Trip total: $159.00'],
      ['Secure checkout', 'Trip summary', 'Travelers'], { pairs: [{ label: 'Travelers', value: '1', entries: 0 }, { label: 'Trip total', value: '$159.00', entries: 0 }] });
    const held = readHeld(s, 'flight');
    assert.equal(held.venue, 'LHR to JFK');
    assert.equal(held.price, '$159.00');
  });

  test('how many is a count in the text, never the cents of a price before a word like "Tickets"', () => {
    const s = page(['Review your order', 'Order summary', 'Jazz Night', 'Thursday, 10 December 2026 · 8:00 PM', '2 × Standard seating @ €69.00', 'Total: €138.00', 'Tickets for Ada Lovelace, sent to ada@example.com'], ['Review your order', 'Order summary']);
    assert.match(readHeld(s, 'activity').quantity, /^2 tickets\b/);
  });

  test('an activity sold per person says how many tickets by its people ("2 adults")', () => {
    const s = page(['Your booking', 'Kayak tour', 'Porto', 'Sunday, 14 July 2030, 10:00 AM', 'Option: Morning tour', '2 adults', 'Total price: €50.00'], ['Your booking', 'Kayak tour']);
    const held = readHeld(s, 'activity');
    assert.match(held.quantity, /^2 tickets\b/);
    assert.match(held.when, /^Sunday, 14 July 2030, 10:00 AM\b/, 'from the weekday, and the time whole');
  });

  test('a numeric date is read by the page\'s language (month first in American English), a number above 12 settling it, never guessed', () => {
    const us = page(['Your reservation', 'Date: 12/05/2030', 'Time: 7:30 PM', 'Guests: 2', 'Total: $40.00'], ['Your reservation'],
      { lang: 'en-US', pairs: [{ label: 'Date', value: '12/05/2030', entries: 0 }, { label: 'Time', value: '7:30 PM', entries: 0 }, { label: 'Guests', value: '2', entries: 0 }] });
    assert.match(readHeld(us, 'restaurant').when, /12\/05\/2030 \(2030-12-05\)/);
    assert.match(readHeld({ ...us, lang: 'en-GB' }, 'restaurant').when, /\(2030-05-12\)/);
    assert.equal(withIsoDates('on 25.12.2030', 'en-US'), 'on 25.12.2030 (2030-12-25)');
    assert.equal(withIsoDates('on 12/05/2030', 'en'), 'on 12/05/2030', 'plain English does not say the order: an ambiguous date is not guessed');
    assert.equal(withIsoDates('on 12/25/2030', ''), 'on 12/25/2030 (2030-12-25)');
  });

  test('a time a line after the date is part of when', () => {
    const s = page(['Trip summary', 'LHR to JFK · Tuesday, 15 December 2026', 'Northwind Airways NA 168, a nonstop flight in Economy · departs 6:00 AM'], ['Trip summary']);
    assert.match(readHeld(s, 'flight').when, /15 December 2026.*6:00 AM/);
  });
});

describe('the page\'s words that nothing is available', () => {
  test('are never the words of the name asked for', () => {
    const results = page(['Results for “Sold Out Sessions”', 'Dec 10, 2026 · 7:30 PM', 'Find tickets'], ['Results for “Sold Out Sessions”']);
    assert.equal(noneMessage(results, 'Sold Out Sessions'), null);
    const none = page(['Sold Out Sessions', 'Sorry, no tickets are currently available for this event.'], ['Sold Out Sessions'], { alerts: ['Sorry, no tickets are currently available for this event.'] });
    assert.equal(noneMessage(none, 'Sold Out Sessions'), 'Sorry, no tickets are currently available for this event.');
  });
});

describe('an upgrade offered on the way on', () => {
  test('is answered with the choice that keeps what was chosen, never the upgrade', () => {
    const s = page(['Upgrade your fare?'], [], {
      dialogs: [{ sel: 'dialog', text: 'Upgrade your fare? Economy Flex adds free changes and a checked bag for $45.00 per traveler.', modal: true, fixed: true }],
      controls: [control('Upgrade to Flex', 0), control('Keep my fare', 0)],
    });
    assert.equal(answerFor(s, s.dialogs[0]!)?.text, 'Keep my fare');
  });

  test('else with the choice that goes on without naming the upgrade', () => {
    const s = page([], [], {
      dialogs: [{ sel: 'dialog', text: 'Upgrade to a Premium room with breakfast for €20 a night?', modal: true, fixed: true }],
      controls: [control('Yes, upgrade to Premium', 0), control('Continue with Standard Room', 0)],
    });
    assert.equal(answerFor(s, s.dialogs[0]!)?.text, 'Continue with Standard Room');
  });

  test('with no choice that keeps it, is left alone (it may be the booking\'s own step)', () => {
    const s = page([], [], { dialogs: [{ sel: 'dialog', text: 'Choose your fare: Basic or Flex', modal: true, fixed: true }], controls: [control('Basic', 0), control('Flex', 0)] });
    assert.equal(answerFor(s, s.dialogs[0]!), null);
  });
});

describe('a phone number for a form that asks its calling code apart', () => {
  test('the calling code\'s option (the longest that starts the number) and the rest of the number', () => {
    const codes = list([['1', 'United States +1'], ['44', 'United Kingdom +44'], ['351', 'Portugal +351'], ['35', 'Nowhere +35']]);
    assert.deepEqual(splitPhone('+44 20 7946 0000', codes), { code: '44', national: '2079460000' });
    assert.deepEqual(splitPhone('+351 912 345 678', codes), { code: '351', national: '912345678' });
    assert.deepEqual(splitPhone('+44 20 7946 0000', list([['GB', 'GB (+44)'], ['US', 'US (+1)']])), { code: 'GB', national: '2079460000' });
    assert.equal(splitPhone('020 7946 0000', codes), null, 'a national number is left whole');
    assert.equal(splitPhone('+81 3 1234 5678', codes), null, 'no option fits');
  });
});

describe('a list\'s option for a value', () => {
  test('a day and a time in the list\'s own words, and the same words whatever their case or separators', () => {
    const times = list([['', 'Any time'], ['7:00 PM', '7:00 PM'], ['7:30 PM', '7:30 PM'], ['8:00 PM', '8:00 PM']]);
    assert.equal(optionFor(times, '19:30'), '7:30 PM');
    assert.equal(optionFor(times, '21:00'), null, 'a time the list does not offer is not another one');
    assert.equal(optionFor(list([['1', 'Economy'], ['2', 'Premium Economy'], ['3', 'Business']]), 'premium_economy'), '2');
    const days = list([['12/11/2030', 'Wednesday, 11 December 2030'], ['12/12/2030', 'Thursday, 12 December 2030']]);
    assert.equal(optionFor(days, '2030-12-12'), '12/12/2030');
    assert.equal(optionFor(days, '2030-12-13'), null, 'a day the list does not offer is not another one');
  });
});

describe('a country list', () => {
  test('is matched by the ISO code, else by the English name, never by a prefix of the code', () => {
    const byName = list([['', 'Select'], ['Indonesia', 'Indonesia'], ['India', 'India'], ['United Kingdom of Great Britain and Northern Ireland', 'United Kingdom of Great Britain and Northern Ireland']]);
    assert.equal(countryOption(byName, 'IN'), 'India');
    assert.equal(countryOption(byName, 'GB'), 'United Kingdom of Great Britain and Northern Ireland');
    assert.equal(countryOption(list([['in', 'India'], ['id', 'Indonesia']]), 'IN'), 'in');
    assert.equal(countryOption(byName, 'FR'), null);
  });
});
