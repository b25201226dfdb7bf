import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from './caller.ts';
import { McpHttpError } from './http-errors.ts';
import { findTool } from './tools/index.ts';
import type { Scope } from './tools/types.ts';

// A booking task (revision 2026-07-28's Tasks extension) is read with the read scope, like
// get_job_status; answering its input request or cancelling it changes the booking: book.
const TASK_SCOPES: ReadonlyMap<string, Scope> = new Map([['tasks/get', 'read'], ['tasks/update', 'book'], ['tasks/cancel', 'book']]);

function insufficientScope(what: string, scope: Scope, caller: Caller): McpHttpError {
  return new McpHttpError(403, 'insufficient_scope', `${what}; this token has [${caller.scopes.join(', ')}].`, {
    'www-authenticate': `Bearer realm="service-mcp", error="insufficient_scope", scope="${scope}"`,
  });
}

/**
 * The HTTP-level permission check of one JSON-RPC message. initialize, ping and tools/list need a
 * valid credential only; tools/call needs the tool's scope (403 insufficient_scope, exactly as the
 * contract words it), and a booking tool needs an API key that allows its scenario (403
 * scenario_not_allowed). Unknown tools pass: the MCP server answers them with JSON-RPC -32602.
 */
export function authorizeMessage(caller: Caller, message: JSONRPCMessage): McpHttpError | null {
  if (!('method' in message)) return null;
  const taskScope = TASK_SCOPES.get(message.method);
  if (taskScope) return caller.scopes.includes(taskScope) ? null : insufficientScope(`${message.method} requires ${taskScope} scope`, taskScope, caller);
  if (message.method !== 'tools/call') return null;
  const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as { name?: unknown };
  const tool = findTool(params.name);
  if (!tool) return null;
  if (!caller.scopes.includes(tool.scope)) return insufficientScope(`Tool ${tool.name} requires ${tool.scope} scope`, tool.scope, caller);
  if (tool.scenario && caller.allowedScenarios && !caller.allowedScenarios.includes(tool.scenario)) {
    return new McpHttpError(
      403,
      'scenario_not_allowed',
      `Tool ${tool.name} books ${tool.scenario} jobs, which this API key's allowed job types exclude; it allows: ${caller.allowedScenarios.join(', ') || 'none'}.`,
    );
  }
  return null;
}
