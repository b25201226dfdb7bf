import type { FastifyRequest } from 'fastify';
import type { Visitor } from '../handoff/handoff.ts';
import { csrfToken, currentUser, sameOriginWithToken, signInPath, safeReturnTo } from '../identity/index.ts';

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

/** True when a state-changing POST of a signed-in person carries their CSRF token from this origin. */
export function sessionPostAllowed(request: FastifyRequest, token: unknown): boolean {
  return sameOriginWithToken(request, token);
}

/** The path that signs the visitor in and brings them back to `returnTo` (a path here). */
export function signInPathFor(request: FastifyRequest, returnTo: string): string {
  return signInPath(safeReturnTo(returnTo, request.server.identity.baseUrl));
}
