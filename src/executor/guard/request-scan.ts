import { isCardCodeName } from '../../driver/card-fields.ts';

// Layer 3's reading of a request: does its URL or body carry a card-code field, whatever its value?
// Bodies are read in every encoding a page can produce: urlencoded, multipart, text/plain forms,
// JSON at any depth (also JSON smuggled inside a string), whatever content type they claim.

const MAX_DEPTH = 32;

function inJson(value: unknown, learned: ReadonlySet<string>, path: string, depth: number): string | null {
  if (depth > MAX_DEPTH || value === null) return null;
  if (typeof value === 'string') return looksEncoded(value) ? inText(value, learned, path, depth + 1) : null;
  if (typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = inJson(value[i], learned, `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const at = path ? `${path}.${key}` : key;
    if (isCardCodeName(key, learned)) return at;
    const hit = inJson(v, learned, at, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** A string that is itself JSON or a form encoding (a smuggled body), not free text. */
function looksEncoded(value: string): boolean {
  return /^\s*[[{]/.test(value) || /^[^\s=&]{1,200}=/.test(value);
}

function inPairs(pairs: Iterable<[string, string]>, learned: ReadonlySet<string>, path: string, depth: number): string | null {
  for (const [key, value] of pairs) {
    // Free text is not a field list: only name-like keys are names.
    if (!/^[^\s=&]{1,200}$/.test(key.trim())) continue;
    const at = path ? `${path}.${key}` : key;
    if (isCardCodeName(key, learned)) return at;
    if (looksEncoded(value)) {
      const hit = inText(value, learned, at, depth + 1);
      if (hit) return hit;
    }
  }
  return null;
}

function inText(text: string, learned: ReadonlySet<string>, path: string, depth: number): string | null {
  if (depth > MAX_DEPTH) return null;
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      return inJson(JSON.parse(trimmed), learned, path, depth);
    } catch {
      // Not JSON after all: read it as a form below.
    }
  }
  const hit = inPairs(new URLSearchParams(text).entries(), learned, path, depth);
  if (hit) return hit;
  if (/\r?\n/.test(text)) {
    // enctype="text/plain": one name=value per line.
    const lines: Array<[string, string]> = [];
    for (const line of text.split(/\r?\n/)) {
      const i = line.indexOf('=');
      if (i > 0) lines.push([line.slice(0, i), line.slice(i + 1)]);
    }
    return inPairs(lines, learned, path, depth);
  }
  return null;
}

function multipartPairs(body: Buffer, contentType: string): Array<[string, string]> {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return [];
  const pairs: Array<[string, string]> = [];
  for (const part of body.toString('latin1').split(`--${boundary}`)) {
    const sep = part.indexOf('\r\n\r\n');
    if (sep < 0) continue;
    const name = /name="([^"]*)"/i.exec(part.slice(0, sep))?.[1];
    if (name === undefined) continue;
    pairs.push([name, Buffer.from(part.slice(sep + 4).replace(/\r\n$/, ''), 'latin1').toString('utf8')]);
  }
  return pairs;
}

/** The card-code field a request carries (a name or a JSON path, never a value), or null. */
export function cardFieldInRequest(url: string, body: Buffer | null, contentType: string, learned: ReadonlySet<string>): string | null {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // An unparseable URL carries no query we could read.
  }
  if (parsed) {
    const hit = inPairs(parsed.searchParams.entries(), learned, '', 0);
    if (hit) return hit;
  }
  if (!body || body.length === 0) return null;
  if (/multipart\/form-data/i.test(contentType)) return inPairs(multipartPairs(body, contentType), learned, '', 0);
  return inText(body.toString('utf8'), learned, '', 0);
}

/** A WebSocket message: JSON or form-encoded text. */
export function cardFieldInMessage(message: string | Buffer, learned: ReadonlySet<string>): string | null {
  return inText(typeof message === 'string' ? message : message.toString('utf8'), learned, '', 0);
}
