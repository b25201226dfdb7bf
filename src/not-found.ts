import type { FastifyReply, FastifyRequest } from 'fastify';
import { redactPath } from './observability/logger.ts';

/**
 * The app-wide 404 (REST has its own, in its envelope, under /api/v1). Fastify's default logs and
 * echoes the raw URL, so a mistyped handoff link (`POST /handoff/<token>`, `/handoff/<token>/x`)
 * would put its capability token in the logs and the body; this names the path as the request
 * logger does, without query or token. Body in the OAuth/MCP envelope {error, message}.
 */
export function notFoundReply(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = redactPath(request.url);
  request.log.info({ method: request.method, path }, 'no route');
  return reply.code(404).type('application/json; charset=utf-8').send({ error: 'not_found', message: `no route ${request.method} ${path}` });
}
