import type { FastifyRequest } from 'fastify';
import type { Visitor } from '../handoff/handoff.ts';
import { csrfToken, currentUser, signInPath, safeReturnTo } from '../identity/index.ts';
import { digestsEqual, sha256 } from '../security/secrets.ts';

// Who is looking at a handoff, watch or bookings page, through the identity area's web sessions.

export async function visitorOf(request: FastifyRequest): Promise<Visitor> {
  const user = await currentUser(request);
  return user ? { userId: user.id } : null;
}

/** Signed-in user details for the page header, or null. */
export function signedInUser(request: FastifyRequest): Promise<{ id: number; email: string | null; name: string | null } | null> {
  return currentUser(request);
}

/** The CSRF token for this session's forms ('' without a session). */
export function csrfTokenOf(request: FastifyRequest): string {
  return csrfToken(request);
}

/**
 * True when a signed-in person's POST carries their session's CSRF token. (Where it came from is
 * checked by the caller: pages here send no Referer, so browsers say `Origin: null` on their forms.)
 */
export function sessionPostAllowed(request: FastifyRequest, token: unknown): boolean {
  const expected = csrfToken(request);
  return typeof token === 'string' && token !== '' && expected !== '' && digestsEqual(sha256(token), sha256(expected));
}

/** The path that signs the visitor in and brings them back to `returnTo` (a path here). */
export function signInPathFor(request: FastifyRequest, returnTo: string): string {
  return signInPath(safeReturnTo(returnTo, request.server.identity.baseUrl));
}
