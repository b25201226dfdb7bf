import type { FastifyInstance, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { Services } from '../services.ts';
import { csrfToken, currentUser, redirectToSignIn, sameOriginWithToken } from '../identity/index.ts';
import { listConnectedApps, revokeGrant } from '../oauth/connected-apps.ts';
import { sendAsset, sendErrorPage, sendPage, STYLESHEET, STYLESHEET_PATH } from '../pages/render.ts';
import { refuseUnstorable } from '../security/text.ts';

function when(date: Date | null): string | null {
  return date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : null;
}

/** Pages of the web application owned by the OAuth area: connected apps, and the shared stylesheet. */
export async function webPages(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { db } = opts.services;
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  // Text PostgreSQL cannot store, in any parameter, is refused (400) before any lookup.
  app.addHook('preHandler', async (request) => refuseUnstorable(request));

  app.get(STYLESHEET_PATH, async (_request, reply) => sendAsset(reply, 'css', STYLESHEET));

  app.get('/developers/connected-apps', async (request, reply) => {
    const user = await currentUser(request);
    if (!user) return redirectToSignIn(request, reply);
    const apps = await listConnectedApps(db, user.id);
    return sendPage(reply, 'connected-apps', {
      user,
      csrf: csrfToken(request),
      apps: apps.map((a) => ({ ...a, grantedAt: when(a.grantedAt), lastUsedAt: when(a.lastUsedAt) })),
    });
  });

  app.post('/developers/connected-apps/:grantId/revoke', async (request: FastifyRequest<{ Params: { grantId: string }; Body: { csrf?: string } }>, reply) => {
    const user = await currentUser(request);
    if (!user || !sameOriginWithToken(request, request.body?.csrf)) return sendErrorPage(reply, 403, 'Not allowed', 'This request did not come from your own Connected apps page.');
    const grantId = Number(request.params.grantId);
    if (Number.isSafeInteger(grantId) && grantId > 0) await revokeGrant(db, user.id, grantId);
    return reply.redirect('/developers/connected-apps', 303);
  });
}
