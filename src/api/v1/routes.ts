import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { ApiError } from './errors.ts';

type Method = 'GET' | 'POST' | 'DELETE';

/**
 * Registers a path's handlers and answers every other method with 405 and an Allow header, so a
 * client that picked the wrong method learns which ones exist rather than getting a 404.
 */
export function resource(app: FastifyInstance, url: string, handlers: Partial<Record<Method, RouteHandlerMethod>>): void {
  const allowed = Object.keys(handlers) as Method[];
  for (const method of allowed) app.route({ method, url, handler: handlers[method]! });
  const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => !allowed.includes(m as Method));
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ');
  app.route({
    method: others,
    url,
    handler: async (_request, reply) => {
      reply.header('allow', allow);
      throw new ApiError(405, 'method_not_allowed', `use ${allowed.join(' or ')} on this path`);
    },
  });
}
