import type { FastifyRequest } from 'fastify';
import type { PresentedCredentials } from '../client-auth.ts';
import { OAuthError } from '../errors.ts';
import { isStorable } from '../../security/text.ts';

/** RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic encoding. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function basicCredentials(header: string | undefined): PresentedCredentials['basic'] {
  if (header === undefined) return undefined;
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header.trim());
  if (!match) return /^basic(\s|$)/i.test(header.trim()) ? 'malformed' : undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return 'malformed';
  let credentials: { clientId: string; secret: string };
  try {
    credentials = { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
  // Refused like the same text in the body (routes/index.ts), before any lookup.
  if (!isStorable(credentials.clientId)) throw new OAuthError('invalid_request', 'the client id in Authorization: Basic must not contain the character U+0000 or an unpaired UTF-16 surrogate');
  if (!isStorable(credentials.secret)) throw new OAuthError('invalid_request', 'the client secret in Authorization: Basic must not contain the character U+0000 or an unpaired UTF-16 surrogate');
  return credentials;
}

/**
 * The form parameters of a token or revocation request. Parameters belong in the body: any in the
 * URL (a client secret in a query string ends up in logs and histories) are refused, as are
 * repeated ones (RFC 6749 §3.2) and any other body format.
 */
export function formParams(request: FastifyRequest): Record<string, string> {
  if (request.url.includes('?')) throw new OAuthError('invalid_request', 'send the parameters in the form body, never in the URL');
  const type = String(request.headers['content-type'] ?? '');
  if (!/^application\/x-www-form-urlencoded(\s*;|$)/i.test(type)) throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded');
  const body = (request.body ?? {}) as Record<string, unknown>;
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must not be repeated`);
    params[name] = value;
  }
  return params;
}

export function presentedCredentials(request: FastifyRequest, params: Record<string, string>): PresentedCredentials {
  return {
    basic: basicCredentials(request.headers.authorization),
    bodyClientId: params.client_id,
    bodySecret: params.client_secret,
    source: request.ip,
  };
}
