import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Issue } from '../jobs/schemas.ts';

/** A successful tool result: structuredContent, and the same JSON as text for older clients. */
export function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * A failed tool call the model can act on: `isError: true` with `{error, message, issues?}` as
 * text (no structuredContent, which would have to match the success outputSchema).
 */
export function toolError(error: string, message: string, issues?: Issue[], extra: Record<string, unknown> = {}): CallToolResult {
  const body = issues === undefined ? { error, message, ...extra } : { error, message, issues, ...extra };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}
