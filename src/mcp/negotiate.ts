import { SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

// What the HTTP request itself must look like before its JSON-RPC message is read: media types
// and the protocol revision header. Each check returns a reason to refuse, or nothing.

/** How a JSON-RPC request is answered: one application/json body, or a text/event-stream. */
export type ResponseMode = 'json' | 'sse';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type, subtype] = range.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim().toLowerCase());
      if (name === 'q' && value !== undefined) {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q-value the most specific matching range gives `type/subtype` (RFC 9110 §12.5.1). */
function qualityOf(ranges: MediaRange[], type: string, subtype: string): number {
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 3 : range.type === type && range.subtype === '*' ? 2 : range.type === '*' && range.subtype === '*' ? 1 : 0;
    if (specificity > 0 && (!best || specificity > best.specificity)) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

// A client sends the same Accept with every request, and clients send a handful of different
// ones: each one's verdict is parsed once (the first few dozen kept, so no client can grow it).
const MODES = new Map<string, ResponseMode | null>();
const MODES_KEPT = 64;

/**
 * Picks the reply's media type from Accept: the one the client prefers; on a tie (the SDK client
 * sends both at q=1) JSON, since one request has exactly one response and nothing to stream.
 * null when the client accepts neither (406).
 */
export function responseModeFor(accept: string | undefined): ResponseMode | null {
  if (!accept) return null;
  let mode = MODES.get(accept);
  if (mode === undefined) {
    mode = modeOf(accept);
    if (MODES.size < MODES_KEPT) MODES.set(accept, mode);
  }
  return mode;
}

function modeOf(accept: string): ResponseMode | null {
  const ranges = parseAccept(accept);
  const json = qualityOf(ranges, 'application', 'json');
  const sse = qualityOf(ranges, 'text', 'event-stream');
  if (json === 0 && sse === 0) return null;
  return sse > json ? 'sse' : 'json';
}

/** application/json, with or without parameters (charset). */
export function isJsonContentType(header: string | undefined): boolean {
  return header !== undefined && header.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * The 2025-era revisions `initialize` negotiates and the MCP-Protocol-Version header may name: the
 * SDK's list but 2025-03-26. That revision requires servers to accept JSON-RPC batches, and a
 * stateless endpoint cannot tell a batch from a 2025-03-26 client from one sent under a later
 * revision (2025-03-26 has no version header; every later revision forbids batches). A client
 * asking for it is offered the latest revision instead, as the lifecycle prescribes; every SDK
 * that spoke 2025-03-26 also speaks 2025-06-18. (2026-07-28 is served by src/mcp/modern.ts.)
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = SDK_VERSIONS.filter((version) => version !== '2025-03-26');

/** A 2025-era revision this server speaks. */
export function isSupportedProtocolVersion(version: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}
