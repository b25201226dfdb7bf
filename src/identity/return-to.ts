import { hasControlCharacter } from '../security/text.ts';

// Where to go after signing in. Only a path on this service is accepted ("/oauth/consent?…"):
// an absolute URL, a scheme-relative "//evil.example", a backslash trick or a control character
// would make the sign-in page an open redirector.

export const DEFAULT_RETURN_TO = '/developers/connected-apps';

export function safeReturnTo(raw: unknown, baseUrl: string): string {
  if (typeof raw !== 'string' || raw === '' || raw.length > 2000) return DEFAULT_RETURN_TO;
  if (!raw.startsWith('/') || raw.startsWith('//') || /[\\\s]/.test(raw) || hasControlCharacter(raw)) return DEFAULT_RETURN_TO;
  let url: URL;
  try {
    url = new URL(raw, baseUrl);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (url.origin !== new URL(baseUrl).origin) return DEFAULT_RETURN_TO;
  // The parser resolves dot segments, so "/.//evil.example" (or "/a/..//evil.example") comes out
  // as "//evil.example": a scheme-relative address a browser follows to another host. What is
  // returned is checked again, as written.
  const path = `${url.pathname}${url.search}`;
  if (path.startsWith('//')) return DEFAULT_RETURN_TO;
  return path;
}

/** The sign-in address that comes back to `returnTo` afterwards. */
export function signInPath(returnTo: string): string {
  return `/signin?return_to=${encodeURIComponent(returnTo)}`;
}
