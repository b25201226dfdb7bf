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

/**
 * Where in a request's parameters (query, form or JSON body, path) the first text PostgreSQL cannot
 * store sits, as a name (`client_id`, `redirect_uris[0]`), or null when there is none. Keys count too.
 */
export function unstorableIn(value: unknown, at = ''): string | null {
  if (typeof value === 'string') return isStorable(value) ? null : at || 'a parameter';
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorableIn(item, `${at}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorable(key)) return at || 'a parameter name';
      const found = unstorableIn(item, at ? `${at}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

/** A parameter PostgreSQL could not store: the client's mistake (400), never a database error (500). */
export class UnstorableTextError extends Error {
  override name = 'UnstorableTextError';
  readonly statusCode = 400;
  readonly where: string;
  constructor(where: string) {
    super(`${where} must not contain the character U+0000 or an unpaired UTF-16 surrogate`);
    this.where = where;
  }
}

/** Throws UnstorableTextError when any parameter of the request (path, query, body) holds such text. */
export function refuseUnstorable(request: { params?: unknown; query?: unknown; body?: unknown }): void {
  const where = unstorableIn(request.params) ?? unstorableIn(request.query) ?? unstorableIn(request.body);
  if (where) throw new UnstorableTextError(where);
}

/** The URL without query or fragment (they may carry personal details or tokens); '' when it is not one. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '';
  }
}
