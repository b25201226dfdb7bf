import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERASED, cardOnFileOf, personalValues, scrubber, withoutCardOnFile } from '../../src/jobs/personal-data.ts';

// What the retention purge looks for in a job's texts, and how it erases it (src/jobs/personal-data.ts).

const PROFILE = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', dob: '1985-12-10', passport_number: 'X1234567', passport_country: 'GB' };

describe('traveller data in a job\'s texts', () => {
  test('the profile\'s distinctive values and the cards on file are looked for, longest first; a country code and blanks are not', () => {
    const values = personalValues({ ...PROFILE, known_traveler_number: ' ' }, ['Visa •••• 4242', undefined, 7]);
    assert.deepEqual(new Set(values), new Set(['Ada', 'Lovelace', 'ada@example.com', '+44 20 7946 0958', '+442079460958', '442079460958', '1985-12-10', 'X1234567', 'Visa •••• 4242']));
    assert.deepEqual(values.map((v) => v.length), [...values.map((v) => v.length)].sort((a, b) => b - a));
    assert.ok(!values.includes('GB'));
    // Every traveller of a flight for several: the others' names, birth dates and passports too.
    const others = personalValues({ ...PROFILE, additional_travellers: [{ first_name: 'Alan', last_name: 'Turing', dob: '1982-06-23', passport_number: 'AT1912062', passport_country: 'GB' }, 'junk'] });
    for (const v of ['Ada', 'Alan', 'Turing', '1982-06-23', 'AT1912062']) assert.ok(others.includes(v), v);
    // A one-letter name would erase every "A".
    assert.deepEqual(personalValues({ first_name: 'A', last_name: 'Ng' }), ['Ng']);
  });

  test('every occurrence is erased, whole words only and whatever the case, in nested strings; keys and other values stay', () => {
    const scrub = scrubber(personalValues(PROFILE, ['Visa •••• 4242']));
    assert.equal(scrub('Table for ADA LOVELACE (ada@example.com, +44 20 7946 0958), card on file Visa •••• 4242.'), `Table for ${ERASED} ${ERASED} (${ERASED}, ${ERASED}), card on file ${ERASED}.`);
    assert.equal(scrub('call +442079460958 or 442079460958'), `call ${ERASED} or ${ERASED}`);
    // Not inside a longer word or number.
    assert.equal(scrub('Adagio, Lovelaces, X12345678, Ada-Lovelace'), `Adagio, Lovelaces, X12345678, ${ERASED}-${ERASED}`);
    assert.deepEqual(scrub({ Ada: ['passport X1234567', 3, null, true], held: { item: 'Suite for Ada' } }), { Ada: [`passport ${ERASED}`, 3, null, true], held: { item: `Suite for ${ERASED}` } });
    // Nothing to look for: the value comes back as it was.
    const same = { a: 'Ada' };
    assert.equal(scrubber([])(same), same);
  });

  test('values with characters special to regular expressions are found literally', () => {
    const scrub = scrubber(personalValues({ first_name: 'J.R.', last_name: "O'Brien (Jr)", email: 'a+b@x.io' }));
    assert.equal(scrub("J.R. O'Brien (Jr), a+b@x.io; JXR stays"), `${ERASED} ${ERASED}, ${ERASED}; JXR stays`);
  });

  test('the card on file is read from an audit event\'s held record and removed from it, the rest of the record kept', () => {
    const data = { providerOutcome: 'accepted', held: { venue: 'Noma', price: '€30', cardOnFile: 'Visa •••• 4242' } };
    assert.equal(cardOnFileOf(data), 'Visa •••• 4242');
    assert.deepEqual(withoutCardOnFile(data), { providerOutcome: 'accepted', held: { venue: 'Noma', price: '€30', cardOnFile: null } });
    assert.equal(cardOnFileOf({ held: null }), undefined);
    const none = { held: null };
    assert.equal(withoutCardOnFile(none), none);
  });
});
