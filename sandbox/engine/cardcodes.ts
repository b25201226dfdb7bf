/**
 * Card-security-code detector. Every request body / query string / WebSocket
 * message that reaches the sandbox is scanned for a field whose NAME looks like
 * a card code (cvc, cvv, csc, security_code, ...) with a non-empty value.
 * Only the fact that a value arrived is recorded (host, path, field name,
 * time) -- the value itself is never stored or logged.
 */

export interface CardCodeReceipt {
  host: string;
  path: string;
  field: string;
  at: Date;
}

/** Whole-segment names (after removing non-alphanumerics). */
const EXACT = new Set([
  'cvc', 'cvv', 'cvv2', 'cvc2', 'csc', 'cid', 'cvn', 'cvd', 'cav2',
  'securitycode', 'cardcode', 'verification', 'verificationcode',
  'cardverification', 'cardverificationvalue', 'cardsecuritycode',
  'cccsc', 'cccvc', 'cccvv',
]);
/** Tokens (split on _ - . space and camelCase) that on their own mean card code. */
const TOKENS = new Set(['cvc', 'cvv', 'cvv2', 'cvc2', 'csc', 'cid', 'cvn', 'cvd']);
/** Substrings of the normalised segment that mean card code. */
const SUBSTRINGS = ['cvc', 'cvv', 'securitycode', 'cardcode', 'cardverification', 'verificationvalue'];

function tokens(segment: string): string[] {
  return segment
    .replace(/([a-z])([A-Z0-9])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * Does this field name (possibly a path like `payment[card][cvc]` or
 * `payment.card.cvc`) denote a card security code? `extra` holds page-specific
 * odd names (exact, case-insensitive), e.g. `f7`.
 */
export function isCardCodeField(name: string, extra: ReadonlySet<string> = new Set()): boolean {
  const segments = name.split(/[[\].]+/).filter(Boolean);
  for (const segment of segments) {
    const lower = segment.toLowerCase();
    if (extra.has(lower)) return true;
    const normalised = lower.replace(/[^a-z0-9]/g, '');
    if (EXACT.has(normalised)) return true;
    if (tokens(segment).some((t) => TOKENS.has(t))) return true;
    if (SUBSTRINGS.some((s) => normalised.includes(s))) return true;
  }
  return false;
}

function nonEmpty(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() !== '';
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'bigint') return true;
  return false;
}

/** Field names (flattened paths) in a JSON value whose key is card-code-like and whose value is non-empty. */
export function scanJson(value: unknown, extra: ReadonlySet<string>, prefix = '', found: string[] = [], depth = 0): string[] {
  if (depth > 64 || value === null || typeof value !== 'object') return found;
  if (Array.isArray(value)) {
    value.forEach((v, i) => scanJson(v, extra, `${prefix}[${i}]`, found, depth + 1));
    return found;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (v !== null && typeof v === 'object') {
      scanJson(v, extra, path, found, depth + 1);
    } else if (nonEmpty(v) && isCardCodeField(key, extra)) {
      found.push(path);
    } else if (typeof v === 'string' && /^\s*[[{]/.test(v)) {
      // JSON smuggled inside a string value
      try {
        scanJson(JSON.parse(v), extra, path, found, depth + 1);
      } catch {
        /* not JSON */
      }
    }
  }
  return found;
}

function scanPairs(pairs: Iterable<[string, string]>, extra: ReadonlySet<string>, found: string[]): void {
  for (const [k, v] of pairs) {
    if (v.trim() !== '' && isCardCodeField(k, extra)) found.push(k);
    else if (/^\s*[[{]/.test(v)) {
      try {
        scanJson(JSON.parse(v), extra, k, found);
      } catch {
        /* not JSON */
      }
    }
  }
}

/** Parses multipart/form-data into (name, value) pairs. File contents are read as text. */
export function parseMultipart(body: Buffer, contentType: string): Array<[string, string]> {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return [];
  const text = body.toString('latin1');
  const parts = text.split(`--${boundary}`);
  const out: Array<[string, string]> = [];
  for (const part of parts) {
    const sep = part.indexOf('\r\n\r\n');
    if (sep < 0) continue;
    const headers = part.slice(0, sep);
    const nameMatch = /name="([^"]*)"/i.exec(headers);
    if (!nameMatch) continue;
    let value = part.slice(sep + 4);
    if (value.endsWith('\r\n')) value = value.slice(0, -2);
    out.push([nameMatch[1] ?? '', Buffer.from(value, 'latin1').toString('utf8')]);
  }
  return out;
}

/**
 * Returns the card-code-like field names carrying a non-empty value in a
 * request: URL query, and a body that may be urlencoded, text/plain form
 * encoding, JSON (any depth, any declared content type) or multipart.
 */
export function scanRequest(query: URLSearchParams, body: Buffer, contentType: string, extra: ReadonlySet<string>): string[] {
  const found: string[] = [];
  scanPairs(query.entries(), extra, found);
  if (body.length > 0) {
    if (/multipart\/form-data/i.test(contentType)) {
      scanPairs(parseMultipart(body, contentType), extra, found);
    } else {
      const text = body.toString('utf8');
      const trimmed = text.trim();
      let parsedJson = false;
      if (/^[[{]/.test(trimmed)) {
        try {
          scanJson(JSON.parse(trimmed), extra, '', found);
          parsedJson = true;
        } catch {
          /* fall through to form parsing */
        }
      }
      if (!parsedJson) {
        scanPairs(new URLSearchParams(text).entries(), extra, found);
        // enctype="text/plain": one name=value per line
        if (/\r?\n/.test(text)) {
          const lines: Array<[string, string]> = [];
          for (const line of text.split(/\r?\n/)) {
            const i = line.indexOf('=');
            if (i > 0) lines.push([line.slice(0, i), line.slice(i + 1)]);
          }
          scanPairs(lines, extra, found);
        }
      }
    }
  }
  return [...new Set(found)];
}
