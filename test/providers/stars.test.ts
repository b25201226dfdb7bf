import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { starsIn, starsOf } from '../../src/providers/shared/stars.ts';

// A hotel's star rating as sites state it (src/providers/shared/stars.ts): the scripted drivers read
// it from an attribute, the generic driver from schema.org or the page's words.

describe('star ratings as sites state them', () => {
  test('a value that is the rating, a half star rounded down to the minimum it meets', () => {
    assert.deepEqual(['4', ' 5 ', '4.5', '3,5', 4].map(starsOf), [4, 5, 4, 3, 4]);
    assert.deepEqual(['0', '6', '', null, undefined, 'four'].map(starsOf), [undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  test('in words or stars, the first a text states', () => {
    assert.equal(starsIn('Hotel Lutetia · 4-star hotel · Old Town'), 4);
    assert.equal(starsIn('Rated 3 stars by our guests'), 3);
    assert.equal(starsIn('Le Grand ★★★★★ Paris'), 5);
    assert.equal(starsOf('★★'), 2);
    assert.equal(starsIn('25 stars of the screen, 10 rooms'), undefined, 'a number that is not a rating');
    assert.equal(starsIn('Open since 1975'), undefined);
  });
});
