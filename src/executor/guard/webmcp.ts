import type { Page } from 'playwright-core';
import { MAX_TOOL_TEXT } from './tool-rule.ts';
import { boundValue, type Bounds, type PageTool } from '../../driver/webmcp.ts';

// The pages' WebMCP tools as the guard hands them out: everything a page declares or returns is
// untrusted input, so it is bounded (sizes, depth, counts) and copied into plain data before anyone
// reads it. Nothing here is ever evaluated. Calling a tool is GuardedPage.callTool's (page-api.ts),
// the only way to call one.

export const MAX_TOOLS = 100;
const MAX_NAME = 128;

/** A tool's input schema: the rule must read all of it, so the limits are wider, and beyond them the tool is not called. */
const SCHEMA_BOUNDS: Bounds = { depth: 16, items: 500, keys: 500, string: 10_000, nodes: 20_000 };

/**
 * The main frame's tools, bounded. Empty when the page registers none, or the browser has no
 * WebMCP (a remote browser launched without `--enable-features=WebMCP`).
 */
export async function listTools(page: Page, timeoutMs: number): Promise<PageTool[]> {
  let declared: Awaited<ReturnType<Page['webmcp']['tools']>>;
  try {
    declared = await page.webmcp.tools({ timeout: timeoutMs });
  } catch (error) {
    if (/not (enabled|available|supported)/i.test((error as Error).message)) return [];
    throw error;
  }
  const tools: PageTool[] = [];
  for (const raw of declared.slice(0, MAX_TOOLS)) {
    if (typeof raw?.name !== 'string' || raw.name === '' || raw.name.length > MAX_NAME) continue;
    const description = typeof raw.description === 'string' ? raw.description : '';
    const schema = raw.inputSchema === undefined ? { value: undefined, truncated: false } : boundValue(raw.inputSchema, SCHEMA_BOUNDS);
    const a = raw.annotations;
    tools.push({
      name: raw.name,
      description: description.slice(0, MAX_TOOL_TEXT),
      ...(schema.value && typeof schema.value === 'object' && !Array.isArray(schema.value) ? { inputSchema: schema.value } : {}),
      ...(a ? { annotations: { readOnly: a.readOnly === true, untrustedContent: a.untrustedContent === true, consequential: a.consequential === true } } : {}),
      ...(schema.truncated || description.length > MAX_TOOL_TEXT ? { unreadable: true } : {}),
    });
  }
  return tools;
}

/** Asked in the page about a declarative tool (`<form toolname>`): in-page/declarative-form.ts, bundled. */
export { declarativeForm } from './in-page.generated.ts';
