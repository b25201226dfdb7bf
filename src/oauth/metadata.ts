import { SCOPES } from './scopes.ts';

// The two discovery documents. `issuer` is BASE_URL exactly as configured (no trailing slash):
// strict clients (RFC 8414 §3.3, RFC 9207) compare it byte for byte with the `iss` they receive.

export function resourceFor(issuer: string): string {
  return `${issuer}/api/mcp`;
}

/** Where a client discovers how to get a token (RFC 9728): named by every 401 of every surface. */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}/.well-known/oauth-protected-resource`;
}

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    registration_endpoint: `${issuer}/oauth/register`,
    // A client may use the https URL of its metadata document as its client_id (no registration).
    client_id_metadata_document_supported: true,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 protected resource metadata for /api/mcp. */
export function protectedResourceMetadata(issuer: string) {
  return {
    resource: resourceFor(issuer),
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: [...SCOPES],
    resource_name: 'Concierge MCP tools',
  };
}
