import type { FastifyBaseLogger } from 'fastify';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Services } from '../../services.ts';
import type { Caller } from '../caller.ts';
import type { Scenario } from '../../jobs/types.ts';

/** What a tool call runs with: the service, who is calling, and the request's logger. */
export interface ToolContext {
  services: Services;
  caller: Caller;
  log: FastifyBaseLogger;
  /**
   * Set by a tool that failed while the database did not answer: the HTTP request is then answered
   * 503 auth_backend_unavailable, as REST answers a failure the database's absence explains.
   */
  databaseGone?: boolean;
}

export type Scope = 'book' | 'read';

/** JSON Schema as advertised in tools/list (draft-07, generated once from the zod schemas). */
export type JsonSchema = { type: 'object'; properties?: Record<string, object>; required?: string[]; [key: string]: unknown };

/** One tool of /api/mcp: its advertised definition, the scope it needs, and what it does. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  /** Booking tools create jobs of this scenario (an API key's allowed_job_types must include it). */
  scenario?: Scenario;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  run(context: ToolContext, args: Record<string, unknown>): Promise<CallToolResult>;
  /**
   * The booking tools, for a client of revision 2026-07-28 that declares the Tasks extension: the
   * job is created as with run, and the answer is the task (CreateTaskResult), or the same tool
   * error run would give.
   */
  startTask?(context: ToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}
