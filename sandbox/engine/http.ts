import { randomBytes, randomInt } from 'node:crypto';

export interface Req {
  method: string;
  host: string;
  path: string;
  query: URLSearchParams;
  /** urlencoded form body (empty for other content types). */
  form: URLSearchParams;
  cookies: Record<string, string>;
  contentType: string;
  body: Buffer;
}

export interface Res {
  status: number;
  headers: Record<string, string | string[]>;
  body: string | Buffer;
  /** Answer this much later (the request has been handled already): a slow provider. */
  delayMs?: number;
  /** And not before this settles. */
  heldUntil?: Promise<void>;
}

export function htmlRes(status: number, body: string, headers: Record<string, string | string[]> = {}): Res {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }, body };
}

export function redirect(location: string, headers: Record<string, string | string[]> = {}): Res {
  return { status: 303, headers: { location, 'cache-control': 'no-store', ...headers }, body: '' };
}

export function jsonRes(status: number, value: unknown): Res {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, body: JSON.stringify(value) };
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (k && !(k in out)) {
      try {
        out[k] = decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        out[k] = part.slice(i + 1).trim();
      }
    }
  }
  return out;
}

export function sessionCookie(name: string, value: string): string {
  return `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax`;
}

export function token(bytes = 18): string {
  return randomBytes(bytes).toString('base64url');
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function randomCode(length: number, alphabet = CODE_ALPHABET): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function shortId(): string {
  return randomCode(10, 'abcdefghijkmnpqrstuvwxyz23456789');
}

/** `/a/:sid/b` + {sid: 'x'} -> `/a/x/b` */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/:([a-z]+)/g, (_, k: string) => encodeURIComponent(params[k] ?? ''));
}

/** Matches `/a/:sid/b` against a path, returning params or null. */
export function matchPath(template: string, path: string): Record<string, string> | null {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i] ?? '';
    const actual = p[i] ?? '';
    if (seg.startsWith(':')) {
      if (!actual) return null;
      try {
        params[seg.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (seg !== actual) {
      return null;
    }
  }
  return params;
}
