/**
 * The two cookies of a person's web session, and the attributes both are set and cleared with.
 *
 * Over https both are __Host- cookies: Secure, this host only, path "/". The sign-in cookie decides
 * whose account the callback signs the browser in to; a plain name could be planted by anyone who
 * can answer one plain-http request to this host (a network attacker) or by a sibling subdomain,
 * who with their own seed and the callback URL of their own sign-in would sign the person in to
 * their account (login CSRF). Clearing uses the same attributes: a browser ignores a __Host- cookie
 * without Secure, so a bare clearing would leave the cookie in place.
 */
export interface IdentityCookies {
  /** The signed-in session. */
  session: string;
  /** A sign-in in progress: its seed and where to return. */
  signIn: string;
  attributes: { path: '/'; httpOnly: true; sameSite: 'lax'; secure: boolean };
}

export function identityCookies(secure: boolean): IdentityCookies {
  const prefix = secure ? '__Host-' : '';
  return {
    session: `${prefix}concierge_session`,
    signIn: `${prefix}concierge_signin`,
    attributes: { path: '/', httpOnly: true, sameSite: 'lax', secure },
  };
}
