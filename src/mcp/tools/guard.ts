import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Issue } from '../../jobs/schemas.ts';
import { DomainError } from '../../jobs/types.ts';
import { RateLimited } from '../../limits/refusal.ts';
import { databaseAnswers } from '../../db/reachable.ts';
import { toolError } from '../results.ts';
import type { ToolContext } from './types.ts';

/** Invalid arguments: every problem at once, so the model can correct them all in one retry. */
export function invalidArguments(toolName: string, issues: Issue[]): CallToolResult {
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return toolError('invalid_arguments', `The arguments of ${toolName} have ${count}; fix every one listed in issues and call ${toolName} again.`, issues);
}

const DOMAIN_MESSAGES: Record<string, string> = {
  idempotency_key_reused: 'This idempotencyKey was already used for a different booking request; use a new key for a new request.',
  job_create_failed: 'The job could not be stored; call again with the same idempotencyKey.',
};

/**
 * Logs a failure the core does not name. Credentials and data live in one database: a failure its
 * absence explains fails closed at the HTTP layer (503 with Retry-After), which a client retries,
 * rather than as a tool result or a JSON-RPC error.
 */
export async function failedUnexpectedly(context: ToolContext, error: unknown, what: string): Promise<void> {
  context.log.error({ err: error }, what);
  if (!(await databaseAnswers(context.services.database))) context.databaseGone = true;
}

/**
 * Runs a tool body. A failure the core names becomes a tool error the model can read; anything
 * else is logged and reported without internals (no stack, SQL or secrets leave the service).
 */
export async function runGuarded<T>(context: ToolContext, body: () => Promise<T | CallToolResult>): Promise<T | CallToolResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof DomainError) {
      if (error.code === 'invalid_request' && Array.isArray(error.details)) return toolError('invalid_arguments', error.message, error.details as Issue[]);
      if (error.code === 'job_create_failed') context.log.error({ err: error.cause ?? error }, 'job create failed');
      return toolError(error.code, DOMAIN_MESSAGES[error.code] ?? error.message);
    }
    if (error instanceof RateLimited) {
      return toolError('rate_limited', `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}. Do not retry before then; tell the user when booking will be possible again.`, undefined, { retryAfterSeconds: error.retryAfter });
    }
    await failedUnexpectedly(context, error, 'tool call failed');
    return toolError('internal_error', 'Something went wrong on the service\'s side; try again in a few seconds.');
  }
}
