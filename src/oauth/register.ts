import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { lookalikeProblem, type ProtectedBrand, unverifiedBrand, unverifiedWebsite } from './brands.ts';
import { AUTH_METHODS, clientInfo, insertClient, type AuthMethod, type ClientInfo, type ClientMetadata } from './clients.ts';
import { OAuthError } from './errors.ts';
import { redirectUriProblem } from './redirect-uris.ts';
import { hasControlCharacter, hasFormatCharacter } from '../security/text.ts';
import { formatScope, isScope, SCOPES, splitScope } from './scopes.ts';

// Dynamic client registration (RFC 7591) for the fields the service uses. Fields it does not use
// (logo_uri, contacts, software_id, …) are ignored, as RFC 7591 §2 allows; a used field of the
// wrong type or value is refused with a message naming it.

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const MAX_NAME = 200;
const INVISIBLE = 'must not contain invisible formatting characters (bidi controls such as U+202E, zero-width characters)';

export interface RegistrationPolicy {
  brands: ProtectedBrand[];
}

function metadataError(field: string, message: string): OAuthError {
  return new OAuthError('invalid_client_metadata', `${field}: ${message}`);
}

function stringArray(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw metadataError(field, 'must be an array of strings');
  return value as string[];
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw metadataError(field, 'must be a string');
  return value;
}

/** A client_uri is a web page shown to the person on the consent page: https (or loopback http). */
function checkClientUri(raw: string): void {
  if (hasFormatCharacter(raw)) throw metadataError('client_uri', INVISIBLE);
  const problem = redirectUriProblem(raw);
  if (problem) throw metadataError('client_uri', `must be an https:// URL (${problem})`);
}

/** Validates registration metadata (everything but the brand rule) into what is stored. */
export function parseClientMetadata(body: unknown): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError('invalid_client_metadata', 'the body must be a JSON object of client metadata');
  const input = body as Record<string, unknown>;

  const rawUris = input.redirect_uris;
  if (rawUris !== undefined && (!Array.isArray(rawUris) || !rawUris.every((v) => typeof v === 'string'))) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris: must be an array of strings');
  }
  const redirectUris = rawUris as string[] | undefined;
  if (redirectUris === undefined || redirectUris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris: at least one redirect URI is required');
  }
  if (redirectUris.length > 20) throw new OAuthError('invalid_redirect_uri', 'redirect_uris: at most 20 are allowed');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris: ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }

  const clientName = optionalString(input, 'client_name');
  if (clientName !== undefined) {
    if (clientName.trim() === '') throw metadataError('client_name', 'must not be blank');
    if ([...clientName].length > MAX_NAME) throw metadataError('client_name', `must be at most ${MAX_NAME} characters`);
    if (hasControlCharacter(clientName)) throw metadataError('client_name', 'must not contain control characters');
    if (hasFormatCharacter(clientName)) throw metadataError('client_name', INVISIBLE);
  }

  const clientUri = optionalString(input, 'client_uri');
  if (clientUri !== undefined) checkClientUri(clientUri);

  const scopeRaw = optionalString(input, 'scope');
  let scope = SCOPES.join(' ');
  if (scopeRaw !== undefined && scopeRaw.trim() !== '') {
    scope = formatScope(splitScope(scopeRaw).filter(isScope));
    if (scope === '') throw metadataError('scope', `none of the requested scopes is offered; this service offers "${SCOPES.join(' ')}"`);
  }

  const grantTypes = stringArray(input, 'grant_types') ?? GRANT_TYPES;
  const unknownGrant = grantTypes.find((g) => !GRANT_TYPES.includes(g));
  if (unknownGrant !== undefined) throw metadataError('grant_types', `${JSON.stringify(unknownGrant)} is not supported; use authorization_code and refresh_token`);
  if (!grantTypes.includes('authorization_code')) throw metadataError('grant_types', 'must include authorization_code');

  const responseTypes = stringArray(input, 'response_types') ?? ['code'];
  if (responseTypes.length === 0 || responseTypes.some((r) => r !== 'code')) throw metadataError('response_types', 'only "code" is supported');

  const method = optionalString(input, 'token_endpoint_auth_method') ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(method)) throw metadataError('token_endpoint_auth_method', `must be one of ${AUTH_METHODS.join(', ')}`);

  return {
    redirectUris,
    clientName: clientName ?? null,
    clientUri: clientUri ?? null,
    scope,
    grantTypes: [...new Set(grantTypes)],
    responseTypes: ['code'],
    authMethod: method as AuthMethod,
  };
}

/**
 * The brand rule (docs/oauth.md, Protected brands), for a registration and a client metadata
 * document alike: a look-alike name, or a protected brand's name or website on a client whose
 * redirect URIs are not all on that brand's domains.
 */
export function brandProblem(metadata: ClientMetadata, brands: ProtectedBrand[]): OAuthError | null {
  if (metadata.clientName !== null) {
    const problem = lookalikeProblem(metadata.clientName);
    if (problem) return metadataError('client_name', problem);
    const brand = unverifiedBrand(metadata.clientName, metadata.redirectUris, brands);
    if (brand) {
      return metadataError('client_name', `names the protected brand "${brand.name}"; only clients whose every redirect URI is on that brand's verified domains may use it`);
    }
  }
  if (metadata.clientUri !== null) {
    const brand = unverifiedWebsite(metadata.clientUri, metadata.redirectUris, brands);
    if (brand) {
      return metadataError('client_uri', `is on the verified domains of the protected brand "${brand.name}"; only clients whose every redirect URI is on that brand's verified domains may show it as their website`);
    }
  }
  return null;
}

/** The registration response: the stored client, plus its secret this one time. */
export type Registration = Omit<ClientInfo, 'registration' | 'first_authorized_at'> & { client_secret?: string };

/** POST /oauth/register: validate, apply the brand rule, store, and show the secret once. */
export async function registerClient(db: Kysely<DB>, policy: RegistrationPolicy, body: unknown): Promise<Registration> {
  const metadata = parseClientMetadata(body);
  const refused = brandProblem(metadata, policy.brands);
  if (refused) throw refused;
  const { client, clientSecret } = await insertClient(db, { ...metadata, registration: 'dynamic' });
  const { registration: _r, first_authorized_at: _f, ...info } = clientInfo(client);
  return clientSecret === null ? info : { ...info, client_secret: clientSecret };
}
