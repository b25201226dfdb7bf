// Which writing systems a word is written in. A word that mixes them ("Gօօgle": Latin with two
// Armenian letters) is how look-alike names are made; ordinary names do not. The rule is UTS #39
// §5.2 "Highly Restrictive": a word's letters and digits come from one script, or only from Latin,
// Han and kana (Japanese), Latin, Han and Bopomofo (Chinese), or Latin, Han and Hangul (Korean).

// Scripts told apart by name. A letter of any other script counts as "another script": mixing it
// with Latin is refused all the same; two such rare scripts in one word are not told apart.
const SCRIPTS = [
  'Latin', 'Greek', 'Cyrillic', 'Armenian', 'Georgian', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Nko',
  'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam',
  'Sinhala', 'Thai', 'Lao', 'Tibetan', 'Myanmar', 'Khmer', 'Mongolian', 'Ethiopic',
  'Han', 'Hiragana', 'Katakana', 'Bopomofo', 'Hangul',
  'Cherokee', 'Canadian_Aboriginal', 'Coptic', 'Tifinagh', 'Lisu', 'Vai', 'Adlam', 'Osage',
] as const;
const PATTERNS = SCRIPTS.map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, 'u')] as const);

const MIXES = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

/** The script of a letter or digit; null for what all scripts share (punctuation, ASCII digits, marks). */
export function scriptOf(ch: string): string | null {
  if (!/^[\p{L}\p{N}]$/u.test(ch) || /^[\p{Script=Common}\p{Script=Inherited}]$/u.test(ch)) return null;
  return PATTERNS.find(([, pattern]) => pattern.test(ch))?.[0] ?? 'another script';
}

/** Whitespace-separated words; a run of one-character words is one word ("G o o g l e"). */
function words(text: string): string[] {
  const out: string[] = [];
  let run = '';
  for (const token of text.split(/\s+/u).filter(Boolean)) {
    if ([...token].length === 1) {
      run += token;
      continue;
    }
    if (run) out.push(run);
    run = '';
    out.push(token);
  }
  if (run) out.push(run);
  return out;
}

/**
 * The scripts (in order of appearance) of the first word of `text` whose letters and digits mix
 * them; null when no word does. Compatibility forms count as what they stand for (mathematical
 * bold 𝐆 is a Latin G).
 */
export function mixedScripts(text: string): string[] | null {
  for (const word of words(text.normalize('NFKD'))) {
    const scripts = [...new Set([...word].map(scriptOf).filter((s) => s !== null))];
    if (scripts.length > 1 && !MIXES.some((mix) => scripts.every((s) => mix.has(s)))) return scripts;
  }
  return null;
}
