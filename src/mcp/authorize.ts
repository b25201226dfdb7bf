import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from './caller.ts';
import { McpHttpError } from './http-errors.ts';
import { findTool } from './tools/index.ts';

/**
 * The HTTP-level permission check of one JSON-RPC message. initialize, ping and tools/list need a
 * valid credential only; tools/call needs the tool's scope (403 insufficient_scope, exactly as the
 * contract words it), and a booking tool needs an API key that allows its scenario (403
 * scenario_not_allowed). Unknown tools pass: the MCP server answers them with JSON-RPC -32602.
 */
export function authorizeMessage(caller: Caller, message: JSONRPCMessage): McpHttpError | null {
  if (!('method' in message) || message.method !== 'tools/call') return null;
  const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as { name?: unknown };
  const tool = findTool(params.name);
  if (!tool) return null;
  if (!caller.scopes.includes(tool.scope)) {
    return new McpHttpError(403, 'insufficient_scope', `Tool ${tool.name} requires ${tool.scope} scope; this token has [${caller.scopes.join(', ')}].`, {
      'www-authenticate': `Bearer realm="service-mcp", error="insufficient_scope", scope="${tool.scope}"`,
    });
  }
  if (tool.scenario && caller.allowedScenarios && !caller.allowedScenarios.includes(tool.scenario)) {
    return new McpHttpError(
      403,
      'scenario_not_allowed',
      `Tool ${tool.name} books ${tool.scenario} jobs, which this API key's allowed job types exclude; it allows: ${caller.allowedScenarios.join(', ') || 'none'}.`,
    );
  }
  return null;
}
