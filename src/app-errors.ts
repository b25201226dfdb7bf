import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { notFoundReply } from './not-found.ts';
import { sendErrorPage } from './pages/render.ts';
import { UnstorableTextError } from './security/text.ts';
import type { Database } from './db/index.ts';
import { databaseAnswers, DATABASE_RETRY_AFTER_SECONDS } from './db/reachable.ts';

/**
 * The app-wide error handler: every route outside the REST API, OAuth and MCP (which render their
 * own envelopes) — the handoff, watch and bookings pages and their JSON routes, sign-in, the
 * development IdP's pages, probes. Fastify's default would send `{statusCode, code, error, message}`
 * with the error's own text: a database error's SQLSTATE and message, or `FST_ERR_*` codes.
 *
 * The envelope is the app-wide one, `{error, message}` (as the 404), or for a browser asking for
 * HTML the error page. A path no route serves stays `404 not_found` whatever its body: Fastify
 * parses the body of an unmatched request too, and its 415 for an unknown media type used to
 * replace the 404.
 */
export function appErrorHandler(database: Database) {
  return async (error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (request.is404) return notFoundReply(request, reply);
    const described = describe(error as Partial<FastifyError>);
    // A server error while the database does not answer is the database gone: these pages and their
    // JSON fail closed as REST, MCP and OAuth do, 503 with Retry-After, not a 500 that invites no retry.
    const { status, code, message } = described.status >= 500 && !(await databaseAnswers(database)) ? UNAVAILABLE : described;
    if (status >= 500) request.log.error({ err: error }, `request failed: ${code}`);
    if (status === 503) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    if (wantsHtml(request)) return sendErrorPage(reply, status, status === 503 ? 'Briefly unavailable' : status >= 500 ? 'Something went wrong' : 'This request could not be read', message);
    return reply.code(status).type('application/json; charset=utf-8').send({ error: code, message });
  };
}

/** The database is unreachable: the same code REST and MCP answer, in this envelope. */
const UNAVAILABLE = { status: 503, code: 'auth_backend_unavailable', message: 'the service cannot reach its database just now; try again in a few seconds' } as const;

function describe(error: Partial<FastifyError>): { status: number; code: string; message: string } {
  if (error instanceof UnstorableTextError) return { status: 400, code: 'invalid_request', message: error.message };
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: 'this route does not take a body of that type' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large', message: 'the request body is too large' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'bad_request', message: 'the request body is not valid JSON' };
  }
  if (error.statusCode === 429) return { status: 429, code: 'too_many_requests', message: 'too many requests; retry later' };
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, code: 'bad_request', message: 'the request could not be read' };
  }
  return { status: 500, code: 'internal_error', message: 'something went wrong on our side; the request id is in the X-Request-Id header' };
}

/** A page load in a browser (its Accept names HTML), not a script's fetch or an API client. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return request.method === 'GET' || request.method === 'POST' ? /\btext\/html\b/.test(accept) : false;
}
