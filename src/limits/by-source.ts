import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { hit, type Limit } from './counter.ts';
import { RateLimited, rateLimitHeaders } from './refusal.ts';

/**
 * An onRequest hook counting every request to a route per source address (request.ip, which
 * TRUST_PROXY decides: the peer, or the client X-Forwarded-For names). An allowed request's answer
 * says what is left, as the API's do; beyond the limit it throws RateLimited, which the surface's
 * error handler answers; the handler never runs.
 */
export function limitBySource(db: Kysely<DB>, limit: Limit) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const verdict = await hit(db, limit, request.ip);
    if (!verdict.allowed) throw new RateLimited(limit, verdict, `too many requests from this address; retry in ${verdict.resetSeconds} s`);
    reply.headers(rateLimitHeaders(limit, verdict));
  };
}
