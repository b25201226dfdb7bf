// The pages' WebMCP tools as a driver sees them: plain JSON data, bounded (sizes, depth, counts)
// and copied by the guard before anyone reads it (executor/guard/webmcp.ts lists them; calling one is
// the page's callTool).

/** A tool as the page declares it (already bounded by the caller: see webmcp.ts). */
export interface DeclaredTool {
  name: string;
  description: string;
  inputSchema?: unknown;
  annotations?: { readOnly?: boolean; untrustedContent?: boolean; consequential?: boolean };
}

/** A tool the page registers, as the guard lets a driver see it. */
export interface PageTool extends DeclaredTool {
  inputSchema?: JsonObject;
  /** The schema was larger or deeper than the guard reads: such a tool is never called. */
  unreadable?: boolean;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface Bounds {
  depth: number;
  items: number;
  keys: number;
  string: number;
  nodes: number;
}

/** A tool's result: what a driver reads of it. */
export const RESULT_BOUNDS: Bounds = { depth: 8, items: 200, keys: 100, string: 4_000, nodes: 5_000 };
/**
 * A copy of `value` as plain JSON data within `bounds`: strings cut, arrays and objects cut, deeper
 * levels dropped, numbers that are not finite dropped, and keys that would reach an object's
 * prototype (`__proto__`, `constructor`, `prototype`) left out. `truncated` says whether anything was.
 */
export function boundValue(value: unknown, bounds: Bounds = RESULT_BOUNDS): { value: JsonValue | undefined; truncated: boolean } {
  let nodes = 0;
  let truncated = false;
  const copy = (v: unknown, depth: number): JsonValue | undefined => {
    if (++nodes > bounds.nodes) {
      truncated = true;
      return undefined;
    }
    if (v === null || typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : null;
    if (typeof v === 'string') {
      if (v.length > bounds.string) truncated = true;
      return v.slice(0, bounds.string);
    }
    if (typeof v !== 'object') return undefined;
    if (depth >= bounds.depth) {
      truncated = true;
      return undefined;
    }
    if (Array.isArray(v)) {
      if (v.length > bounds.items) truncated = true;
      const out: JsonValue[] = [];
      for (const item of v.slice(0, bounds.items)) {
        const c = copy(item, depth + 1);
        if (c !== undefined) out.push(c);
      }
      return out;
    }
    const out: JsonObject = {};
    let keys = 0;
    for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
      if (++keys > bounds.keys) {
        truncated = true;
        break;
      }
      const c = copy(item, depth + 1);
      if (c !== undefined) Object.defineProperty(out, key.slice(0, 200), { value: c, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const result = copy(value, 0);
  return { value: result, truncated };
}
