import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Limit } from '../../limits/counter.ts';
import { limitBySource } from '../../limits/by-source.ts';
import { csrfToken, currentUser, redirectToSignIn, sameOriginWithToken } from '../../identity/index.ts';
import { CONSENT_SCRIPT, CONSENT_SCRIPT_PATH, sendAsset, sendErrorPage, sendPage, securityHeaders } from '../../pages/render.ts';
import { pendingAuthorization, startAuthorization, type AuthorizeContext, type AuthorizeParams } from '../authorize.ts';
import { decideAuthorization } from '../consent.ts';
import { redirectOrigin } from '../redirect-uris.ts';
import { SCOPE_DESCRIPTIONS, scopeList } from '../scopes.ts';

// The endpoints a person's browser visits: the authorization endpoint and the consent page.

/**
 * `authorizeLimit`: authorization requests per source address (OAUTH_AUTHORIZE_RATE_LIMIT). Each
 * valid one stores a row (for 10 minutes), so an unthrottled loop could fill the table; a person
 * connects an app a handful of times, so the default leaves room for many people behind one address.
 */
export function authorizationPageRoutes(app: FastifyInstance, db: Kysely<DB>, context: AuthorizeContext, authorizeLimit: Limit): void {
  const html = { config: { html: true } };

  // No automatic HEAD route: it would run this handler (storing a request that nobody can see)
  // without the limit's hook. HEAD answers like any method the path lacks.
  const authorizeOptions = { exposeHeadRoute: false, onRequest: limitBySource(db, authorizeLimit), config: { html: true } };
  app.get('/oauth/authorize', authorizeOptions, async (request: FastifyRequest<{ Querystring: AuthorizeParams }>, reply) => {
    const outcome = await startAuthorization(db, context, request.query, async () => (await currentUser(request)) !== null);
    securityHeaders(reply);
    if (outcome.kind === 'error_page') return sendErrorPage(reply, 400, 'This link cannot be used', outcome.message);
    if (outcome.kind === 'redirect') return reply.redirect(outcome.location, 303);
    return reply.redirect(`/oauth/consent?request=${encodeURIComponent(outcome.requestId)}`, 303);
  });

  app.get('/oauth/consent', html, async (request: FastifyRequest<{ Querystring: { request?: string } }>, reply) => {
    const user = await currentUser(request);
    if (!user) return redirectToSignIn(request, reply);
    const requestId = typeof request.query.request === 'string' ? request.query.request : '';
    const pending = requestId ? await pendingAuthorization(db, requestId) : null;
    if (!pending) return sendErrorPage(reply, 400, 'This request has expired', 'This authorization request is unknown, was already answered, or took longer than 10 minutes. Start again from the app.');
    const origin = redirectOrigin(pending.redirectUri);
    return sendPage(
      reply,
      'consent',
      {
        user,
        requestId,
        csrf: csrfToken(request),
        clientName: pending.clientName ?? 'An unnamed app',
        named: pending.clientName !== null,
        clientUri: pending.clientUri,
        documentOrigin: pending.documentOrigin,
        redirectHost: new URL(pending.redirectUri).host,
        scopes: scopeList(pending.scope).map((s) => ({ name: s, description: SCOPE_DESCRIPTIONS[s] })),
      },
      { formTargets: [origin], scripts: [CONSENT_SCRIPT_PATH] },
    );
  });
  app.get(CONSENT_SCRIPT_PATH, async (_request, reply) => sendAsset(reply, 'js', CONSENT_SCRIPT));

  app.post('/oauth/consent', html, async (request: FastifyRequest<{ Body: { request?: string; csrf?: string; decision?: string } }>, reply) => {
    const body = request.body ?? {};
    const user = await currentUser(request);
    if (!user || !sameOriginWithToken(request, body.csrf) || typeof body.request !== 'string' || (body.decision !== 'approve' && body.decision !== 'deny')) {
      return sendErrorPage(reply, 403, 'Not allowed', 'This answer did not come from your own consent page, so nothing was granted.');
    }
    const decided = await decideAuthorization(db, context.issuer, { requestId: body.request, userId: user.id, approve: body.decision === 'approve' });
    if (!decided) return sendErrorPage(reply, 403, 'Already answered', 'This authorization request was already answered or has expired; nothing more was granted.');
    securityHeaders(reply);
    return reply.redirect(decided.location, 303);
  });
}
