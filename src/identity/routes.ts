import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { Services } from '../services.ts';
import { sendErrorPage, sendPage, securityHeaders } from '../pages/render.ts';
import { DEV_EMAIL, DEV_IDP_PATH, type DevIdentityProvider } from './dev-idp.ts';
import { RelyingParty, SignInError } from './relying-party.ts';
import { safeReturnTo } from './return-to.ts';
import { createSession, endSession, SESSION_TTL_SECONDS } from './sessions.ts';
import { upsertUser } from './users.ts';
import { sameOriginWithToken } from './current-user.ts';
import { refuseUnstorable } from '../security/text.ts';

// Sign-in, its callback and sign-out; and, when configured, the development identity provider's
// own pages. Handlers parse, call one function, and shape the reply.

const FLOW_TTL_SECONDS = 600;

export interface IdentityRouteOptions {
  services: Services;
  relyingParty: RelyingParty;
  devIdp: DevIdentityProvider | null;
}

export async function identityRoutes(app: FastifyInstance, options: IdentityRouteOptions): Promise<void> {
  const { services, relyingParty, devIdp } = options;
  const { db, log } = services;
  const { baseUrl, cookies } = app.identity;
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  // Text PostgreSQL cannot store, in any parameter, is refused (400) before any lookup.
  app.addHook('preHandler', async (request) => refuseUnstorable(request));

  app.get('/signin', async (request: FastifyRequest<{ Querystring: { return_to?: string } }>, reply) => {
    const returnTo = safeReturnTo(request.query.return_to, baseUrl);
    let start;
    try {
      start = await relyingParty.begin();
    } catch (error) {
      log.error({ err: { message: (error as Error).message } }, 'sign-in could not start');
      return sendErrorPage(reply, 503, 'Sign-in is unavailable', 'The identity provider cannot be reached right now. Try again in a minute.');
    }
    reply.setCookie(cookies.signIn, `${start.seed}.${Buffer.from(returnTo).toString('base64url')}`, { ...cookies.attributes, maxAge: FLOW_TTL_SECONDS });
    securityHeaders(reply);
    return reply.redirect(start.url, 303);
  });

  app.get('/signin/callback', async (request, reply) => {
    const cookie = request.cookies[cookies.signIn] ?? '';
    const [seed = '', encodedReturn = ''] = cookie.split('.');
    reply.clearCookie(cookies.signIn, cookies.attributes);
    if (seed.length !== 43) {
      return sendErrorPage(reply, 400, 'Sign-in expired', 'This sign-in was not started in this browser, or it took too long. Start again.');
    }
    let identity;
    try {
      identity = await relyingParty.complete(new URL(request.url, baseUrl), seed);
    } catch (error) {
      if (!(error instanceof SignInError)) throw error;
      log.warn({ err: { message: error.message } }, 'sign-in refused');
      return sendErrorPage(reply, 400, 'Sign-in failed', 'The identity provider did not confirm who you are. Start again.');
    }
    const user = await upsertUser(db, identity);
    // A fresh session id at every sign-in (no fixation); the browser's previous one ends.
    const previous = request.cookies[cookies.session];
    if (previous) await endSession(db, previous);
    const session = await createSession(db, user.id);
    reply.setCookie(cookies.session, session, { ...cookies.attributes, maxAge: SESSION_TTL_SECONDS });
    securityHeaders(reply);
    const returnTo = safeReturnTo(Buffer.from(encodedReturn, 'base64url').toString('utf8'), baseUrl);
    return reply.redirect(returnTo, 303);
  });

  app.post('/signout', async (request: FastifyRequest<{ Body: { csrf?: string } }>, reply) => {
    if (!sameOriginWithToken(request, request.body?.csrf)) return sendErrorPage(reply, 403, 'Not allowed', 'This request did not come from your own Concierge page.');
    const value = request.cookies[cookies.session];
    if (value) await endSession(db, value);
    reply.clearCookie(cookies.session, cookies.attributes);
    return sendPage(reply, 'signed-out', {});
  });

  if (devIdp) await devIdentityProviderRoutes(app, devIdp);
}

/** The development provider: its protocol endpoints are passed to oidc-provider untouched. */
async function devIdentityProviderRoutes(app: FastifyInstance, devIdp: DevIdentityProvider): Promise<void> {
  const { provider } = devIdp;
  const handle = provider.callback();
  const interactionPrefix = `${DEV_IDP_PATH}/interaction/`;

  // Handed over before Fastify reads the body: oidc-provider parses its own requests. The mount
  // prefix is stripped and kept in originalUrl, which is how oidc-provider learns where it is.
  const forward = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    void done;
    reply.hijack();
    const raw = request.raw as typeof request.raw & { originalUrl?: string };
    const url = raw.url ?? DEV_IDP_PATH;
    raw.originalUrl = url;
    raw.url = url.slice(DEV_IDP_PATH.length) || '/';
    handle(raw, reply.raw);
  };
  for (const url of [DEV_IDP_PATH, `${DEV_IDP_PATH}/*`]) {
    app.route({ method: ['GET', 'POST', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'], url, onRequest: forward, handler: async () => undefined });
  }

  const page = (request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply, data: { email?: string; error?: string }, status = 200) =>
    sendPage(
      reply,
      'dev-idp-login',
      {
        action: `${interactionPrefix}${request.params.uid}/login`,
        abortAction: `${interactionPrefix}${request.params.uid}/abort`,
        email: data.email ?? '',
        error: data.error,
      },
      { status },
    );

  app.get(`${interactionPrefix}:uid`, async (request: FastifyRequest<{ Params: { uid: string } }>, reply) => {
    try {
      await provider.interactionDetails(request.raw, reply.raw);
    } catch {
      return sendErrorPage(reply, 400, 'Sign-in expired', 'This sign-in took too long or was already finished. Start again from the app.');
    }
    return page(request, reply, {});
  });

  app.post(`${interactionPrefix}:uid/login`, async (request: FastifyRequest<{ Params: { uid: string }; Body: { email?: string } }>, reply) => {
    const email = String(request.body?.email ?? '').trim().toLowerCase();
    if (!DEV_EMAIL.test(email)) return page(request, reply, { email, error: 'Type an email address, like ada@example.com.' }, 400);
    let location: string;
    try {
      location = await provider.interactionResult(request.raw, reply.raw, { login: { accountId: email } }, { mergeWithLastSubmission: false });
    } catch {
      return sendErrorPage(reply, 400, 'Sign-in expired', 'This sign-in took too long or was already finished. Start again from the app.');
    }
    return reply.redirect(location, 303);
  });

  app.post(`${interactionPrefix}:uid/abort`, async (request: FastifyRequest<{ Params: { uid: string } }>, reply) => {
    let location: string;
    try {
      location = await provider.interactionResult(request.raw, reply.raw, { error: 'access_denied', error_description: 'the person cancelled the sign-in' }, { mergeWithLastSubmission: false });
    } catch {
      return sendErrorPage(reply, 400, 'Sign-in expired', 'This sign-in took too long or was already finished.');
    }
    return reply.redirect(location, 303);
  });
}
