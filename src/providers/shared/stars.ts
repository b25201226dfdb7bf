// A hotel's star rating as sites state it, 1 to 5: as a value of its own (an attribute, schema.org's
// ratingValue: "4", "4.5") or in words ("4-star hotel", "Rated 4 stars", "★★★★"). A half star is
// not a star: 4.5 is 4, the minimum it meets.

const IN_WORDS = /\b([1-5])(?:[.,]\d)?\s?-?\s?stars?\b|(?:^|\s)(★{1,5})(?:\s|$)/i;

/** The first rating a text states in words or stars, or undefined. */
export function starsIn(text: string | null | undefined): number | undefined {
  const m = IN_WORDS.exec(text ?? '');
  if (!m) return undefined;
  return m[1] ? Number(m[1]) : m[2]!.length;
}

/** A value that is the rating itself ("4", "4.5"), or one stated in words; undefined otherwise. */
export function starsOf(value: string | number | null | undefined): number | undefined {
  const text = String(value ?? '').trim();
  const n = /^([1-5])(?:[.,]\d+)?$/.exec(text)?.[1];
  return n ? Number(n) : starsIn(text);
}
