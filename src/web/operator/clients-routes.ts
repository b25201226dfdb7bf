import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { listClients } from '../../oauth/clients.ts';
import { deleteClientAs } from '../../operator/clients.ts';
import { operatorFor } from './gate.ts';
import { sendOperatorPage, when } from './page.ts';

// OAuth clients: every registered client (dynamic, operator-minted, metadata documents) and
// deleting one, which ends its grants and tokens at once.

export function clientRoutes(app: FastifyInstance, services: Services): void {
  const { db } = services;

  app.get('/operator/clients', async (request, reply) => {
    const clients = await listClients(db);
    return sendOperatorPage(request, reply, 'clients', 'operator-clients', {
      clients: clients.map((c) => ({ ...c, issuedAt: when(new Date(c.client_id_issued_at * 1000).toISOString()), firstAuthorizedAt: when(c.first_authorized_at) })),
    });
  });

  app.post('/operator/clients/:clientId/delete', async (request: FastifyRequest<{ Params: { clientId: string } }>, reply) => {
    await deleteClientAs(db, operatorFor(request), request.params.clientId);
    return reply.redirect('/operator/clients', 303);
  });
}
