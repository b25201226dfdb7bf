// What the brand check folds a character to, after NFKD and the removal of accents: the Latin
// letters it imitates. Keys are matched exactly first, then in lower case (capital Greek Eta "Η"
// looks like H, small "η" like n). Targets are lower case; 'i' is written 'l' throughout, because
// i, l, 1, I, | and ! are one class to the eye (see LEET).
//
// The tables per script hold every single-character entry of Unicode's confusables.txt (UTS #39,
// version 13) in that script whose prototype is ASCII letters or digits and that NFKD does not
// already decompose; lower-case Cyrillic and Greek letters that read as small capitals or cursive
// Latin although the file does not list them (в к м н т, β ε η κ μ τ χ ω); and a few others
// marked below. Latin letters outside a–z are not here: the brand check refuses them, except the
// ordinary letters of ORDINARY_LATIN.

type Table = Record<string, string>;

/** Leetspeak and symbols read as letters. */
const LEET: Table = {
  '0': 'o', '1': 'l', '2': 'z', '3': 'e', '4': 'a', '5': 's', '6': 'g', '7': 't', '8': 'b', '9': 'g',
  '@': 'a', $: 's', '|': 'l', '!': 'l', '€': 'e', '£': 'l',
  i: 'l',
};

/**
 * Latin letters of ordinary spelling (Danish, Polish, German, Icelandic, Croatian, Turkish,
 * Maltese, Sámi, Azerbaijani, Akan…) that NFKD leaves alone, folded to the letters they resemble.
 */
const ORDINARY_LATIN: Table = {
  ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'l',
  ħ: 'h', ŧ: 't', ŋ: 'n', ə: 'e', ɛ: 'e', ɔ: 'o',
};

/** Per script: target → the characters that imitate it. */
const CONFUSABLES: Record<string, Record<string, string>> = {
  Cyrillic: {
    a: 'а', ae: 'ӕ', b: 'ЬВв', bl: 'Ы', c: 'с', d: 'ԁ', e: 'ЗӠеҽ', g: 'бԌԍ', h: 'һНн', j: 'ј', k: 'Кк', l: 'іꙇӏ', lo: 'Ю',
    m: 'Мм', o: 'о', oo: 'ꚙ', p: 'р', q: 'ԛ', r: 'г', s: 'ѕ', t: 'Тт', v: 'ѵ', w: 'ѡԝ', x: 'х', y: 'уү', z: 'Ꙅ',
  },
  Greek: {
    a: 'α', b: 'Ββ', c: 'ςϲ', e: '𝈆Εε', f: '𝈓Ϝ', h: 'Η', j: 'ϳ', k: 'Κκ', l: 'ι𝈪', m: 'ΜϺμ', n: 'Νη', o: 'οσ', p: 'ρ',
    r: 'ᴦ𝈖', t: '𝈒Ττ', u: 'υ', v: 'ν𝈍', w: 'ω', x: 'Χχ', y: 'γΥ', z: 'Ζ',
  },
  Armenian: { f: 'ք', g: 'ց', h: 'հ', n: 'ոռ', o: 'օ', q: 'գզ', s: 'Տ', u: 'ս', w: 'ա' },
  Coptic: { c: 'ⲥ', e: 'Ⳍ', g: 'ⳒⳊ', h: 'Ⲏ', k: 'Ⲕ', l: 'ⲒⳐ', m: 'Ⲙ', n: 'Ⲛ', o: 'ⲟ', p: 'ⲣ', r: 'ⲅ', t: 'Ⲧ', x: 'Ⲭ', y: 'Ⲩ', z: 'Ϩ' },
  Cherokee: {
    a: 'ᏎᎪ', b: 'ᏏᏴ', c: 'ꮯ', d: 'ᏧᎠ', e: 'Ꭼ', g: 'ᏮᏀᏳ', h: 'ᏂᎻ', j: 'Ꭻ', k: 'Ꮶ', l: 'ꭵᏞ', m: 'Ꮇ', p: 'Ꮲ', r: 'ꮁᎡᏒ',
    s: 'ꮪᏕ', t: 'Ꭲ', v: 'ꮩ', w: 'ꮃᏔ', y: 'ᎩᎽ', z: 'ꮓ',
  },
  Lisu: {
    a: 'ꓮ', b: 'ꓐ', c: 'ꓚ', d: 'ꓒꓓ', e: 'ꓰ', f: 'ꓝ', g: 'ꓖ', h: 'ꓧ', j: 'ꓙ', k: 'ꓗ', l: 'ꓲꓡ', m: 'ꓟ', n: 'ꓠ', o: 'ꓳ',
    p: 'ꓑ', r: 'ꓣ', s: 'ꓢ', t: 'ꓔ', u: 'ꓴ', v: 'ꓦ', w: 'ꓪ', x: 'ꓫ', y: 'ꓬ', z: 'ꓜ',
  },
  Canadian_Aboriginal: { a: 'ᗅ', b: 'ᑲᖯᗷ', d: 'ᑯᗞᗪ', f: 'ᖴ', h: 'ᕼ', j: 'ᒍ', l: 'ᒪ', m: 'ᗰ', p: 'ᑭ', r: 'ᖇ', u: 'ᑌ', v: 'ᐯ', x: '᙮ᕁᕽ᙭', z: 'ᒿ' },
  Tifinagh: { e: 'ⴹ', l: 'ⵏ', o: 'ⵔ', q: 'ⵕ', v: 'ⴸ', x: 'ⵝ' },
  Georgian: { o: 'ჿ', y: 'ყ' },
  Han: { o: '〇' },
  // Marked: not in confusables.txt. Hangul jamo ㅇ and ㅣ, as NFKD leaves them (U+110B, U+1175).
  Hangul: { o: '\u110B', l: '\u1175' },
  Common: {
    a: '⍺', ar: '🜇', c: '🝌', e: '℮⋿', l: '⍳∣⏽', ll: '‖∥', lt: '₶', mb: '🝫', oo: '∞', p: '⍴', qe: '🜀', sss: '🝜',
    t: '⊤⟙🝨', u: '∪⋃', v: '∨⋁', vb: '🝬', x: '×⤫⤬⨯╳', z: '𐋵',
    // Marked: white circles.
    o: '○◯',
  },
};

function build(): Table {
  const table: Table = { ...LEET, ...ORDINARY_LATIN };
  for (const byTarget of Object.values(CONFUSABLES)) {
    for (const [target, chars] of Object.entries(byTarget)) for (const ch of chars) table[ch] = target;
  }
  // Regional indicator symbols (🇦…🇿) show as boxed letters wherever they do not pair into a flag.
  for (let i = 0; i < 26; i++) table[String.fromCodePoint(0x1f1e6 + i)] = String.fromCharCode(0x61 + i).replace('i', 'l');
  return table;
}

export const LOOKALIKES: Readonly<Table> = build();
