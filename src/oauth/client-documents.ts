import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { guardedGet, GuardedFetchError, type GuardedFetchPolicy } from '../net/guarded-fetch.ts';
import type { ProtectedBrand } from './brands.ts';
import { findClient, type ClientRow } from './clients.ts';
import { OAuthError } from './errors.ts';
import { brandProblem, parseClientMetadata } from './register.ts';

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP authorization
// 2025-11-25 and 2026-07-28): a client whose client_id is an https URL publishes its metadata as
// JSON at that URL; there is no registration. The document is fetched when the client first
// appears at /oauth/authorize or /oauth/token, validated as a registration would be (and the brand
// rule applies), and kept as the client's row in oauth_clients (registration
// 'metadata_document'), so grants, codes and tokens work as for any client, and every node sees
// it. The row is used until its HTTP caching lifetime ends, then the document is fetched again.

export interface DocumentPolicy extends GuardedFetchPolicy {
  brands: ProtectedBrand[];
  /** Development: an http:// client_id on a loopback host is accepted (tests serve documents locally). */
  allowHttpLoopback: boolean;
}

/** The limits of production: public https addresses only, 5 KiB, 5 s. */
export const DOCUMENT_LIMITS = { timeoutMs: 5000, maxBytes: 5 * 1024 } as const;

/**
 * The policy a deployment fetches documents with: public https addresses only in production;
 * outside it (development, tests) loopback and private addresses, and http on a loopback host, so
 * that a document can be served locally.
 */
export function documentPolicy(nodeEnv: string, brands: ProtectedBrand[]): DocumentPolicy {
  const production = nodeEnv === 'production';
  return { ...DOCUMENT_LIMITS, brands, allowPrivate: !production, allowHttpLoopback: !production };
}

/** How long a document with no caching headers is used, and the longest any is. */
const DEFAULT_LIFETIME_SECONDS = 10 * 60;
const MAX_LIFETIME_SECONDS = 24 * 60 * 60;
const MAX_URL = 200;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether this client_id names a metadata document (an https URL) rather than a registered client. */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/** A refusal of the document, with a reason the person (authorize) or the client (token) can act on. */
export class ClientDocumentError extends Error {
  override name = 'ClientDocumentError';
}

/** The client_id as a document URL, or the reason it cannot be one. */
function documentUrl(clientId: string, policy: DocumentPolicy): URL {
  if (clientId.length > MAX_URL) throw new ClientDocumentError(`the client_id URL is longer than ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new ClientDocumentError('the client_id is not a valid URL');
  }
  const loopbackHttp = url.protocol === 'http:' && policy.allowHttpLoopback && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) throw new ClientDocumentError('a client_id URL must use https');
  if (url.username || url.password) throw new ClientDocumentError('a client_id URL must not carry a user name or password');
  if (url.hash || clientId.includes('#')) throw new ClientDocumentError('a client_id URL must not have a fragment');
  if (url.pathname === '/') throw new ClientDocumentError('a client_id URL must have a path');
  if (url.href !== clientId) throw new ClientDocumentError('a client_id URL must be written in its normal form (no . or .. segments, lower-case host, no default port)');
  return url;
}

/** Seconds the document may be used for, from its Cache-Control (max-age, no-store, no-cache) or Expires. */
export function cacheLifetime(headers: Record<string, string | string[] | undefined>, now = Date.now()): number {
  const control = String(headers['cache-control'] ?? '').toLowerCase();
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/.test(control)) return 0;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(control);
  if (maxAge) return Math.min(Number(maxAge[1]), MAX_LIFETIME_SECONDS);
  const expires = typeof headers.expires === 'string' ? Date.parse(headers.expires) : NaN;
  if (Number.isFinite(expires)) {
    const date = typeof headers.date === 'string' ? Date.parse(headers.date) : NaN;
    return Math.max(0, Math.min(Math.floor((expires - (Number.isFinite(date) ? date : now)) / 1000), MAX_LIFETIME_SECONDS));
  }
  return DEFAULT_LIFETIME_SECONDS;
}

async function fetchDocument(url: URL, policy: DocumentPolicy): Promise<{ document: unknown; lifetime: number }> {
  let fetched;
  try {
    fetched = await guardedGet(url, policy);
  } catch (error) {
    if (error instanceof GuardedFetchError) throw new ClientDocumentError(`the client metadata document ${error.message}`);
    throw error;
  }
  if (fetched.status !== 200) throw new ClientDocumentError(`the client metadata document answered HTTP ${fetched.status}`);
  const type = String(fetched.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) throw new ClientDocumentError('the client metadata document is not served as application/json');
  let document: unknown;
  try {
    document = JSON.parse(fetched.body.toString('utf8'));
  } catch {
    throw new ClientDocumentError('the client metadata document is not valid JSON');
  }
  return { document, lifetime: cacheLifetime(fetched.headers) };
}

/** Validates a fetched document for `clientId`: what a registration must satisfy, and the document's own rules. */
function validateDocument(clientId: string, document: unknown, policy: DocumentPolicy) {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new ClientDocumentError('the client metadata document must be a JSON object');
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) throw new ClientDocumentError('the client metadata document\'s client_id is not the URL it was fetched from');
  if (fields.client_secret !== undefined || fields.client_secret_expires_at !== undefined) {
    throw new ClientDocumentError('a client metadata document must not carry a client secret');
  }
  if (fields.token_endpoint_auth_method !== 'none') {
    throw new ClientDocumentError('a client metadata document must declare token_endpoint_auth_method "none" (a public client: there is no shared secret)');
  }
  let metadata;
  try {
    metadata = parseClientMetadata(fields);
    const brand = brandProblem(metadata, policy.brands);
    if (brand) throw brand;
  } catch (error) {
    if (error instanceof OAuthError) throw new ClientDocumentError(`the client metadata document is refused: ${error.message}`);
    throw error;
  }
  return metadata;
}

/**
 * The client a document client_id stands for, fetched again when its cached copy has expired (or
 * was never fetched). Throws ClientDocumentError when the document cannot be fetched or is invalid;
 * a cached copy is not used past its lifetime.
 */
export async function resolveDocumentClient(db: Kysely<DB>, policy: DocumentPolicy, clientId: string, options: { knownOnly?: boolean } = {}): Promise<ClientRow> {
  const url = documentUrl(clientId, policy);
  const cached = await findClient(db, clientId);
  if (cached && cached.registration === 'metadata_document' && cached.metadata_expires_at !== null && cached.metadata_expires_at.getTime() > Date.now()) return cached;
  // The token endpoint refreshes documents it has seen at /oauth/authorize and fetches no other:
  // a client that never authorized holds no code or token, and an unauthenticated caller must not
  // be able to make the service fetch URLs of its choosing.
  if (options.knownOnly && cached?.registration !== 'metadata_document') throw new ClientDocumentError('unknown client: a client metadata document client first goes through /oauth/authorize');
  const { document, lifetime } = await fetchDocument(url, policy);
  const metadata = validateDocument(clientId, document, policy);
  const values = {
    redirect_uris: metadata.redirectUris,
    client_name: metadata.clientName,
    client_uri: metadata.clientUri,
    scope: metadata.scope,
    grant_types: metadata.grantTypes,
    response_types: metadata.responseTypes,
    metadata_expires_at: sql<Date>`now() + make_interval(secs => ${lifetime})`,
  };
  return db
    .insertInto('oauth_clients')
    .values({ client_id: clientId, secret_hash: null, token_endpoint_auth_method: 'none', registration: 'metadata_document', ...values })
    .onConflict((oc) => oc.column('client_id').doUpdateSet(values).where('oauth_clients.registration', '=', 'metadata_document'))
    .returningAll()
    .executeTakeFirstOrThrow();
}
