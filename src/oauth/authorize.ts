import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { findClient, type ClientRow } from './clients.ts';
import { ClientDocumentError, isDocumentClientId, resolveDocumentClient, type DocumentPolicy } from './client-documents.ts';
import { AUTHORIZATION_REQUEST_TTL_SECONDS, CODE_CHALLENGE, mint, secondsFromNow } from './tokens.ts';
import { formatScope, scopeCovers, splitScope } from './scopes.ts';
import { sha256 } from '../security/secrets.ts';
import { errorDescription } from './errors.ts';

// GET /oauth/authorize. The order of the checks matters (RFC 6749 §4.1.2.1): until the client and
// its redirect URI are known to be genuine, nothing is sent to that URI: a request with a bad
// client or an unregistered redirect_uri gets an error page, never a redirect (no open redirector).

export type AuthorizeParams = Record<string, string | string[] | undefined>;

export interface AuthorizeContext {
  issuer: string;
  resource: string;
  /** How client metadata documents are fetched (a client_id that is an https URL). */
  documents: DocumentPolicy;
}

export type AuthorizeOutcome =
  /** Shown to the person; the client is not told. */
  | { kind: 'error_page'; error: string; message: string }
  /** Back to the client with error, state and iss. */
  | { kind: 'redirect'; location: string }
  /** Stored; the person goes on to consent with this id. */
  | { kind: 'consent'; requestId: string };

const SINGLE = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource', 'prompt'];
const MAX_STATE = 2048;

/**
 * The client's redirect URI with the given parameters added, including iss (RFC 9207). They are
 * appended to the registered string as it is: RFC 6749 §3.1.2 says its query must be kept, and a
 * URL parser would rewrite it ("?flag" as "?flag=", "%20" as "+", "~" as "%7E"), which a client
 * comparing its callback URL byte for byte would not recognise. Registered URIs have no fragment.
 */
export function redirectWith(redirectUri: string, issuer: string, params: Record<string, string | null | undefined>): string {
  const added = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null) added.append(name, value);
  added.append('iss', issuer);
  const separator = !redirectUri.includes('?') ? '?' : /[?&]$/.test(redirectUri) ? '' : '&';
  return `${redirectUri}${separator}${added.toString()}`;
}

function one(params: AuthorizeParams, name: string): string | undefined {
  const value = params[name];
  return Array.isArray(value) ? undefined : value;
}

/** Whether the browser asking is signed in (asked only when the answer matters: prompt=none). */
export type SignedIn = () => Promise<boolean>;

export async function startAuthorization(db: Kysely<DB>, context: AuthorizeContext, params: AuthorizeParams, signedIn: SignedIn = async () => false): Promise<AuthorizeOutcome> {
  // 1. The client and its redirect URI, before anything is sent anywhere.
  const clientId = params.client_id;
  if (typeof clientId !== 'string' || clientId === '') return { kind: 'error_page', error: 'invalid_request', message: 'The request does not say which application is asking (client_id is missing or repeated).' };
  let client: ClientRow | undefined;
  try {
    client = isDocumentClientId(clientId) ? await resolveDocumentClient(db, context.documents, clientId) : await findClient(db, clientId);
  } catch (error) {
    if (!(error instanceof ClientDocumentError)) throw error;
    return { kind: 'error_page', error: 'invalid_client', message: `The application asking for access describes itself at ${clientId.slice(0, 200)}, but that description cannot be used: ${error.message}.` };
  }
  if (!client) return { kind: 'error_page', error: 'invalid_client', message: 'The application asking for access is not registered here.' };
  const redirectUri = params.redirect_uri;
  if (typeof redirectUri !== 'string' || redirectUri === '') return { kind: 'error_page', error: 'invalid_request', message: 'The request has no redirect_uri (or more than one).' };
  if (!client.redirect_uris.includes(redirectUri)) {
    return { kind: 'error_page', error: 'invalid_request', message: 'The redirect_uri is not one the application registered, so this request cannot be answered safely.' };
  }

  // 2. Everything else is reported to the client, with state echoed unchanged.
  const stateRaw = params.state;
  const state = typeof stateRaw === 'string' ? stateRaw : undefined;
  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: redirectWith(redirectUri, context.issuer, { error, error_description: errorDescription(description), state }),
  });
  const repeated = SINGLE.find((name) => Array.isArray(params[name]));
  if (repeated) return fail('invalid_request', `${repeated} must not be repeated`);
  if (state !== undefined && state.length > MAX_STATE) return fail('invalid_request', `state must be at most ${MAX_STATE} characters`);
  if (params.client_secret !== undefined) return fail('invalid_request', 'a client secret must never be sent in a URL');
  if (params.request !== undefined || params.request_uri !== undefined) return fail('request_not_supported', 'request objects are not supported');

  const responseType = one(params, 'response_type');
  if (responseType === undefined || responseType === '') return fail('invalid_request', 'response_type is required');
  if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');

  const challenge = one(params, 'code_challenge');
  const method = one(params, 'code_challenge_method');
  if (challenge === undefined || challenge === '') return fail('invalid_request', 'code_challenge is required (PKCE with S256)');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (!CODE_CHALLENGE.test(challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');

  const scopeRaw = one(params, 'scope');
  const requested = scopeRaw === undefined || scopeRaw.trim() === '' ? splitScope(client.scope) : splitScope(scopeRaw);
  if (requested.length === 0 || !scopeCovers(client.scope, requested)) {
    return fail('invalid_scope', `the scope must be a subset of '${client.scope}'`);
  }

  const resource = one(params, 'resource');
  if (resource !== undefined && resource !== context.resource) return fail('invalid_target', `the only resource here is ${context.resource}`);

  // prompt (OpenID Connect Core §3.1.2.1, which OAuth clients borrow). The person approves every
  // request on the consent page, so prompt=none ("show nothing") can never be honoured: it is
  // answered at once, as OpenID providers do, instead of showing the page the client said it
  // could not show. prompt=consent is met (the page is always shown); other values, login
  // included (signing in again when a session exists), are ignored (RFC 6749 §3.1).
  const prompt = one(params, 'prompt');
  const prompts = prompt === undefined ? [] : prompt.split(' ').filter(Boolean);
  if (prompts.includes('none')) {
    if (prompts.length > 1) return fail('invalid_request', 'prompt=none cannot be combined with other values');
    return (await signedIn())
      ? fail('consent_required', 'the person must approve this request on the consent page; send it without prompt=none')
      : fail('login_required', 'the person must sign in and approve this request; send it without prompt=none');
  }

  const id = mint('');
  await db
    .insertInto('oauth_authorization_requests')
    .values({
      id_hash: id.hash,
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: formatScope(requested),
      state: state ?? null,
      code_challenge: challenge,
      resource: context.resource,
      expires_at: secondsFromNow(AUTHORIZATION_REQUEST_TTL_SECONDS),
    })
    .execute();
  return { kind: 'consent', requestId: id.value };
}

/** The stored request a consent page shows (null when unknown, expired or already decided). */
export async function pendingAuthorization(db: Kysely<DB>, requestId: string) {
  if (requestId.length > 100) return null;
  const row = await db
    .selectFrom('oauth_authorization_requests as r')
    .innerJoin('oauth_clients as c', 'c.client_id', 'r.client_id')
    .select(['r.client_id', 'r.redirect_uri', 'r.scope', 'r.expires_at', 'r.decided_at', 'c.client_name', 'c.client_uri', 'c.registration'])
    .where('r.id_hash', '=', sha256(requestId))
    .executeTakeFirst();
  if (!row || row.decided_at !== null || row.expires_at.getTime() <= Date.now()) return null;
  return {
    clientId: row.client_id,
    clientName: row.client_name,
    clientUri: row.client_uri,
    /** A metadata document client: the origin its document (and so its client_id) is served from. */
    documentOrigin: row.registration === 'metadata_document' ? new URL(row.client_id).origin : null,
    redirectUri: row.redirect_uri,
    scope: row.scope,
  };
}
