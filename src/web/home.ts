import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { csrfToken, currentUser } from '../identity/index.ts';
import { sendPage } from '../pages/render.ts';

/**
 * The service's front page: where a person finds their bookings and connected apps, and a developer
 * finds the API reference and the MCP endpoint's address. It reads nothing but who is signed in.
 */
export async function homePage(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { BASE_URL } = opts.services.config;
  app.get('/', async (request, reply) => {
    const user = await currentUser(request);
    return sendPage(reply, 'home', {
      user,
      csrf: user ? csrfToken(request) : null,
      mcpUrl: `${BASE_URL}/api/mcp`,
      apiUrl: `${BASE_URL}/api/v1`,
    });
  });
}
