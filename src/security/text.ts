/** True when `value` holds a C0/C1 control character or a Unicode line/paragraph separator. */
export function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true;
  }
  return false;
}

/**
 * True when `value` holds an invisible formatting character (Unicode category Cf): bidi controls
 * (U+061C, U+200E/F, U+202A–202E, U+2066–2069), zero-width characters (U+200B–200D, U+2060–2064,
 * U+FEFF), the soft hyphen, tags… They change how text reads without being seen: "\u202Eelgoog"
 * displays as "google".
 */
export function hasFormatCharacter(value: string): boolean {
  return /\p{Cf}/u.test(value);
}

/** Whether PostgreSQL text can hold the value: no U+0000 and no unpaired UTF-16 surrogate. */
export function isStorable(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}
