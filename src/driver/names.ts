// Is the name a site shows the name asked for? Sites write a venue's name their own way: with the
// city or the neighbourhood ("Casa Lumen Porto · Ribeira", "Noma, Copenhagen", "Hotel Lutetia ·
// Paris"), with or without accents, "&" for "and", a "The" or a "Hotel" in front. A sister venue is
// another name ("Casa Lumen Annex"), not the same one written otherwise.
//
// The rule: the shown name's head (what comes before a separator: "·", "|", ",", "(", " – ") holds
// every word asked for, and its other words are the city or a generic word ("hotel", "the");
// whatever comes after a separator is a location or a tagline. Compared word for word, ignoring
// case, accents and punctuation.

/** Words that say what a place is, not which one it is (in the languages of booking sites). */
const GENERIC = new Set([
  'the', 'a', 'an', 'and', 'of', 'at', 'hotel', 'restaurant', 'bar', 'cafe',
  'le', 'la', 'les', 'l', 'el', 'los', 'las', 'il', 'lo', 'gli', 'i', 'o', 'os', 'as', 'der', 'die', 'das', 'de', 'du', 'des', 'da', 'do', 'del', 'di', 'y', 'et', 'e', 'und',
  'hotels', 'hostal', 'hostel', 'hôtel', 'ristorante', 'restaurante', 'trattoria', 'osteria', 'brasserie', 'bistro', 'gasthaus', 'gasthof', 'pousada', 'albergo', 'locanda',
]);

const SEPARATOR = /\s*(?:[·|•(,;:—]|\s[-–]\s)\s*/;

/** Text without accents, lower case ("Bestätigen" → "bestatigen"): how names and words are compared. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Lowercase words without accents or punctuation ("Café & Co." → "cafe and co"). */
export function nameWords(text: string): string[] {
  return fold(text).replace(/&/g, ' and ').replace(/[^\p{L}\p{N}]+/gu, ' ').trim().split(' ').filter(Boolean);
}

export interface NameMatch {
  same: boolean;
  /** Why, in words an audit event can quote. */
  evidence: string;
}

/** Does `shown` name the place `asked` (in `city`)? */
export function sameName(asked: string, shown: string, city = ''): NameMatch {
  const want = nameWords(asked);
  const all = nameWords(shown);
  if (want.join(' ') === all.join(' ')) return { same: true, evidence: `"${shown}" is the name asked for` };
  const significant = want.filter((w) => !GENERIC.has(w));
  const needed = significant.length ? significant : want;
  const head = nameWords(shown.split(SEPARATOR)[0] ?? shown);
  const place = new Set(nameWords(city));
  const missing = needed.filter((w) => !head.includes(w));
  if (missing.length) return { same: false, evidence: `"${shown}" lacks ${missing.map((w) => `"${w}"`).join(', ')} of "${asked}"` };
  const extra = head.filter((w) => !want.includes(w) && !GENERIC.has(w) && !place.has(w));
  if (extra.length) return { same: false, evidence: `"${shown}" adds ${extra.map((w) => `"${w}"`).join(', ')} to "${asked}"` };
  const added = [...head.filter((w) => !want.includes(w)), ...all.slice(head.length)];
  return { same: true, evidence: `"${shown}" is "${asked}"${added.length ? ` with ${added.map((w) => `"${w}"`).join(', ')} added (${head.some((w) => place.has(w)) ? 'the city, ' : ''}words after a separator are a place or a tagline)` : ' written otherwise'}` };
}
