import type { FastifyRequest } from 'fastify';
import type { Visitor } from '../handoff/handoff.ts';

// Who is looking at a handoff, watch or bookings page: the signed-in user, or nobody.
// ADAPTER until the identity area (sign-in, web sessions) is merged: nobody is ever signed in.
export async function visitorOf(_request: FastifyRequest): Promise<Visitor> {
  return null;
}

/** Signed-in user details for the page header, or null. */
export async function signedInUser(_request: FastifyRequest): Promise<{ id: number; email: string | null; name: string | null } | null> {
  return null;
}

/** The CSRF token for this session's forms ('' without a session). */
export function csrfTokenOf(_request: FastifyRequest): string {
  return '';
}

/** True when a state-changing POST of a signed-in person carries their CSRF token from this origin. */
export function sessionPostAllowed(_request: FastifyRequest, _token: unknown): boolean {
  return false;
}

/** The path that signs the visitor in and brings them back to `returnTo`. */
export function signInPathFor(returnTo: string): string {
  return `/signin?return_to=${encodeURIComponent(returnTo)}`;
}
