import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { csrfTokenFor, sessionUser, type SessionUser } from './sessions.ts';
import { digestsEqual, sha256 } from '../security/secrets.ts';
import { safeReturnTo, signInPath } from './return-to.ts';
import type { IdentityCookies } from './cookies.ts';

// What the pages of the web application (consent, connected apps, later handoff and bookings) ask
// of identity: who is signed in, their CSRF token, and how to send someone to sign in and back.

export interface IdentityContext {
  db: Kysely<DB>;
  baseUrl: string;
  cookies: IdentityCookies;
}

declare module 'fastify' {
  interface FastifyInstance {
    identity: IdentityContext;
  }
  interface FastifyRequest {
    /** The signed-in user, looked up once per request (null until asked: identity/index.ts decorates). */
    sessionUserLookup: Promise<SessionUser | null> | null;
  }
}

function sessionValue(request: FastifyRequest): string | undefined {
  return request.cookies?.[request.server.identity.cookies.session];
}

/** The signed-in user of this request, or null. Looked up once per request. */
export function currentUser(request: FastifyRequest): Promise<{ id: number; email: string | null; name: string | null } | null> {
  if (!request.sessionUserLookup) {
    const value = sessionValue(request);
    request.sessionUserLookup = value ? sessionUser(request.server.identity.db, value) : Promise.resolve(null);
  }
  return request.sessionUserLookup;
}

/** The CSRF token to put in this session's forms (empty without a session). */
export function csrfToken(request: FastifyRequest): string {
  const value = sessionValue(request);
  return value ? csrfTokenFor(value) : '';
}

/**
 * True when a state-changing POST may be acted on: it carries this session's CSRF token and, when
 * the browser says where it comes from, it comes from this service's own origin.
 */
export function sameOriginWithToken(request: FastifyRequest, token: unknown): boolean {
  const value = sessionValue(request);
  if (!value || typeof token !== 'string' || token === '') return false;
  // Pages here send no Referer, so browsers post them with `Origin: null`; Fetch Metadata still
  // names the true relation. A foreign origin, or a null one the browser does not vouch for, fails.
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin === 'null' ? site !== 'same-origin' : origin !== undefined && origin !== new URL(request.server.identity.baseUrl).origin) return false;
  return digestsEqual(sha256(token), sha256(csrfTokenFor(value)));
}

/** Sends the browser to sign in, to come back to `returnTo` (a path on this service) afterwards. */
export function redirectToSignIn(request: FastifyRequest, reply: FastifyReply, returnTo: string = request.url): FastifyReply {
  return reply.redirect(signInPath(safeReturnTo(returnTo, request.server.identity.baseUrl)), 303);
}
