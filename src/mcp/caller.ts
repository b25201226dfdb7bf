import type { Principal } from '../auth/resource-server.ts';
import type { Owner, Reader, Scenario } from '../jobs/types.ts';
import type { Scope } from './tools/types.ts';

/**
 * Who is calling /api/mcp, in the terms the tools need: the scopes the credential carries, who new
 * jobs belong to, whose jobs it may read, and which scenarios it may book.
 */
export interface Caller {
  principal: Principal;
  scopes: readonly Scope[];
  owner: Owner;
  reader: Reader;
  /** An API key's allowed_job_types; undefined = every scenario (OAuth users). */
  allowedScenarios?: readonly Scenario[];
  /** An API key's mode; undefined for OAuth users (their jobs take the service's mode for people, JobDeps.userJobMode). */
  mode?: 'test' | 'live';
  /** An API key's daily_limit of jobs per UTC day; undefined/null = none. */
  dailyLimit?: number | null;
}

// API keys carry both scopes (the contract leaves their scope-checking open): a server holding a
// key is trusted like the organisation that minted it, and limited by allowed_job_types instead.
const API_KEY_SCOPES: readonly Scope[] = ['book', 'read'];

export function callerOf(principal: Principal): Caller {
  if (principal.kind === 'api_key') {
    return {
      principal,
      scopes: API_KEY_SCOPES,
      owner: { kind: 'organization', organizationName: principal.organizationName, apiKeyId: principal.apiKeyId },
      reader: { kind: 'organization', organizationName: principal.organizationName },
      allowedScenarios: principal.allowedJobTypes,
      mode: principal.mode,
      dailyLimit: principal.dailyLimit,
    };
  }
  return {
    principal,
    scopes: principal.scopes,
    // A job created through an OAuth client belongs to the user, and records the client.
    owner: { kind: 'user', userId: principal.userId, clientId: principal.clientId },
    reader: { kind: 'user', userId: principal.userId },
  };
}
