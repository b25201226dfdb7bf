import { hasControlCharacter, hasFormatCharacter } from '../security/text.ts';

// Which redirect URIs a client may register (contract: https, or http on the loopback names only).
// The registered string is what the authorization endpoint compares byte for byte and redirects
// to, so the raw string itself is checked, not only what a URL parser makes of it: parsers forgive
// (whitespace, backslashes, missing slashes) in ways an attacker can use.

// Loopback as written, not as parsed: a URL parser reads "http://127.1/", "http://0x7f.0.0.1/",
// "http://2130706433/" and "http://LOCALHOST/" as these hosts too, and such spellings have no
// business in a registration. IPv6 [::1] is not offered (the contract names these two). The host
// ends where a path or query starts, or with the URI: native apps register "http://127.0.0.1:33418"
// (VS Code) and "http://localhost" without a path, and a browser sends the code to "/" there.
const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?(?=[/?]|$)/;
const MAX_LENGTH = 2000;

export type RedirectUriProblem = string;

/** null when `raw` may be registered as a redirect URI; otherwise why not. */
export function redirectUriProblem(raw: unknown): RedirectUriProblem | null {
  if (typeof raw !== 'string' || raw === '') return 'must be a non-empty string';
  if (raw.length > MAX_LENGTH) return `must be at most ${MAX_LENGTH} characters`;
  // Whitespace, control and invisible formatting characters anywhere ("java\tscript:",
  // " https://…", a bidi override), backslashes that parsers treat as slashes, and wildcards are
  // never part of an exact redirect target.
  if (/[\s\\*]/.test(raw) || hasControlCharacter(raw) || hasFormatCharacter(raw)) return 'must not contain whitespace, control or invisible formatting characters, backslashes or wildcards';
  // The string is sent back as it is, in a Location header, which carries ASCII only: a character
  // past U+00FF makes the reply throw, and one in U+0080–U+00FF goes out as a Latin-1 byte the
  // browser decodes otherwise. The code of an approved request would be stored and never delivered.
  if (/[^\x21-\x7e]/.test(raw)) return 'must be printable ASCII: percent-encode other characters of the path or query (UTF-8, as %E5%9B%9E) and write an international host name in punycode (xn--…)';
  if (raw.includes('#')) return 'must not contain a fragment';
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'must be an absolute URI';
  if (scheme !== 'https' && scheme !== 'http') return `the ${scheme}: scheme is not allowed; use https://, http://localhost or http://127.0.0.1`;
  if (!raw.startsWith(`${scheme}://`)) return `must start with ${scheme}:// in lower case`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URI';
  }
  if (url.username !== '' || url.password !== '' || /^https?:\/\/[^/?]*@/.test(raw)) return 'must not contain user information (user@host)';
  if (url.hostname === '') return 'must name a host';
  if (scheme === 'http' && !LOOPBACK.test(raw)) return 'http:// is allowed only for localhost and 127.0.0.1, written exactly as http://localhost[:port][/…] or http://127.0.0.1[:port][/…]; use https://';
  return null;
}

/** True when `uri` is an http redirect to this machine (localhost or 127.0.0.1, as written), where a native app listens. */
export function isLoopbackUri(uri: string): boolean {
  return LOOPBACK.test(uri);
}

/** The origin a redirect URI lands on (for the consent page and its form-action policy). */
export function redirectOrigin(uri: string): string {
  return new URL(uri).origin;
}
