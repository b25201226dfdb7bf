import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { ApiError } from './errors.ts';
import { operationSchema, type OperationDoc } from './openapi.ts';

type Method = 'GET' | 'POST' | 'DELETE';

/**
 * One method of a path: its handler and the operation the OpenAPI document shows for it, or
 * `hidden` for a method that exists only to answer an error (a collection read without its id).
 */
export type Operation = { doc: OperationDoc; handler: RouteHandlerMethod } | { hidden: true; handler: RouteHandlerMethod };

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

/** Left out of the OpenAPI document: the 405 and OPTIONS answers, and hidden operations. */
const HIDDEN = { hide: true } as const;

/**
 * Registers a path's operations, each with its documentation as the route's schema (from which
 * @fastify/swagger generates the OpenAPI document). Every other method gets 405 with an Allow
 * header, so a client that picked the wrong method learns which ones exist rather than getting a
 * 404; OPTIONS answers 204 with the same Allow header.
 */
export function resource(app: FastifyInstance, url: string, operations: Partial<Record<Method, Operation>>, options: ResourceOptions = {}): void {
  const config = { public: options.public === true };
  const allowed = Object.keys(operations) as Method[];
  for (const method of allowed) {
    const operation = operations[method]!;
    const schema = 'doc' in operation ? operationSchema(operation.doc, config.public) : HIDDEN;
    app.route({ method, url, config, schema, handler: operation.handler });
  }
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  app.route({
    method: 'OPTIONS',
    url,
    config,
    schema: HIDDEN,
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
  app.route({ method: others, url, config, schema: HIDDEN, onRequest: refuse, handler: refuse });
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
