import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { ApiError } from './errors.ts';

type Method = 'GET' | 'POST' | 'DELETE';

export interface ResourceOptions {
  /** Served without an API key (the API's own documentation). */
  public?: boolean;
}


declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no API key (the OpenAPI document and its reference page). */
    public?: boolean;
  }
}

/**
 * Registers a path's handlers. Every other method gets 405 with an Allow header, so a client that
 * picked the wrong method learns which ones exist rather than getting a 404; OPTIONS answers 204
 * with the same Allow header.
 */
export function resource(app: FastifyInstance, url: string, handlers: Partial<Record<Method, RouteHandlerMethod>>, options: ResourceOptions = {}): void {
  const config = { public: options.public === true };
  const allowed = Object.keys(handlers) as Method[];
  for (const method of allowed) app.route({ method, url, config, handler: handlers[method]! });
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  app.route({
    method: 'OPTIONS',
    url,
    config,
    handler: async (_request, reply) => reply.header('allow', allow).code(204).send(),
  });
  // Every other method the server routes (see app.ts: all that Node parses); HEAD comes with GET.
  const others = app.supportedMethods.filter((m) => !(allowed as string[]).includes(m) && m !== 'OPTIONS' && !(m === 'HEAD' && allowed.includes('GET')));
  const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', allow);
    throw new ApiError(405, 'method_not_allowed', `${request.method} is not supported here; use ${allowed.join(' or ')}`);
  };
  // Refused on arrival (after authentication), before Fastify reads a body: the method is wrong
  // whatever the body, so a PUT of text/plain or a QUERY without a Content-Type is 405, not 415 or 400.
  app.route({ method: others, url, config, onRequest: refuse, handler: refuse });
}

export function isPublicRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config?.public === true;
}

/**
 * The id segment that follows `collection` in the request's raw path, percent-decoded. The router
 * folds duplicate slashes (".../execution-jobs//audit" reaches the ":jobId" route with jobId
 * "audit"), so the raw path is the only honest source: an empty or blank segment means the client
 * left the id out.
 */
export function idAfter(request: FastifyRequest, collection: string): string {
  const path = request.url.split('?')[0] ?? '';
  const marker = `${collection}/`;
  const at = path.indexOf(marker);
  if (at < 0) return '';
  const segment = path.slice(at + marker.length).split('/')[0] ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
