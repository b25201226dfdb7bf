import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { bookingTools } from './booking.ts';
import { getJobAuditTool } from './get-job-audit.ts';
import { getJobStatusTool } from './get-job-status.ts';
import type { ToolDefinition } from './types.ts';

/** The six tools of /api/mcp, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [...bookingTools, getJobStatusTool, getJobAuditTool];

const BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: unknown): ToolDefinition | undefined {
  return typeof name === 'string' ? BY_NAME.get(name) : undefined;
}

/** The tools/list answer, built once: the same for every caller (listing needs no scope). */
export const TOOL_LIST: ListToolsResult = {
  tools: TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  })),
};
