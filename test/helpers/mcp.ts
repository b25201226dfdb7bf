import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type CreateTaskSessionFromClientOptions, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import { daysFromNow, FLIGHT_PROFILE, PROFILE, type TestService } from './service.ts';
import { authenticateBearer } from '../../src/auth/resource-server.ts';
import { callerOf } from '../../src/mcp/caller.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { ToolContext } from '../../src/mcp/tools/types.ts';

/** The official SDK client, connected to {baseUrl}/api/mcp over real HTTP with a bearer credential. */
export async function mcpClient(baseUrl: string, bearer: string, options: { fetch?: FetchLike } = {}) {
  const client = new Client({ name: 'concierge-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

export interface RpcReply {
  status: number;
  headers: Headers;
  /** The JSON body, or the last `data:` message of an SSE stream. */
  body: any;
  text: string;
}

/** One raw POST to /api/mcp, as a hand-written client would send it. */
export async function rpc(baseUrl: string, body: unknown, options: { bearer?: string; headers?: Record<string, string>; raw?: string; method?: string } = {}): Promise<RpcReply> {
  const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  const response = await fetch(`${baseUrl}/api/mcp`, { method: options.method ?? 'POST', headers, body: payload });
  const text = await response.text();
  let parsed: any;
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((line) => line.startsWith('data: '));
    parsed = data.length ? JSON.parse(data.at(-1)!.slice(6)) : undefined;
  } else {
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: the test looks at `text`.
    }
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * `promise`, or a failure after `ms`: an MCP reply that went to the wrong request (or nowhere)
 * leaves its own request waiting, so such a test fails in seconds, not at the suite's time limit.
 */
export function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms).unref())]);
}

export const INITIALIZE = (protocolVersion = '2025-06-18') => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
});

/** Valid arguments for each booking tool. */
export function bookingArguments(): Record<string, Record<string, unknown>> {
  return {
    book_restaurant: { restaurant_name: 'Noma', city: 'Copenhagen', date: daysFromNow(7), time: '19:30', covers: 2, profile: PROFILE },
    book_hotel: { hotel_name: 'Hotel Sanders', city: 'Copenhagen', checkin: daysFromNow(10), checkout: daysFromNow(12), adults: 2, profile: PROFILE },
    book_flight: { origin: 'LHR', dest: 'CPH', date: daysFromNow(14), passengers: 1, cabin_class: 'economy', profile: FLIGHT_PROFILE },
    book_activity: { event_name: 'Hamlet', city: 'London', event_date: daysFromNow(20), num_tickets: 2, profile: PROFILE },
  };
}

/** The JSON a tool result carries as text (the same as its structuredContent, or the error body). */
export function textOf(result: Record<string, unknown>): any {
  const content = result.content as Array<{ type: string; text?: string }>;
  return JSON.parse(content.find((c) => c.type === 'text')!.text!);
}

/** The current MCP revision, served statelessly beside the 2025 ones. */
export const MODERN_REVISION = '2026-07-28';

/** A hand-written request of the current revision: the envelope in _meta and the standard headers. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  return {
    body: {
      jsonrpc: '2.0',
      id: 7,
      method,
      params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_REVISION, 'io.modelcontextprotocol/clientCapabilities': {}, ...meta } },
    },
    headers: { 'mcp-protocol-version': String(meta['io.modelcontextprotocol/protocolVersion'] ?? MODERN_REVISION), 'mcp-method': method, ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}) },
  };
}

/** The context a tool call of `org` (a new API key of its own) runs with, as src/mcp/index.ts builds it. */
export async function toolContextFor(service: TestService, org: string): Promise<ToolContext> {
  const resource = `${service.services.config.BASE_URL}/api/mcp`;
  return {
    services: service.services,
    caller: callerOf(await authenticateBearer(service.services.db, `Bearer ${await service.mintKey(org)}`, resource)),
    log: createLogger('silent'),
  };
}

/** The Tasks extension, as a client declares it (io.modelcontextprotocol/tasks). */
export const TASKS = { 'io.modelcontextprotocol/tasks': {} };
export const WITH_TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: TASKS } };

/** The raw dispatch the ext-tasks session needs for the current revision's task traffic: one POST per request. */
export function rawDispatch(baseUrl: string, bearer: string): RawClientDispatch {
  let id = 0;
  return async (request) => {
    const message = request as { method: string; params?: { name?: string; taskId?: string } };
    const name = message.params?.name ?? message.params?.taskId;
    const response = await fetch(`${baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_REVISION, 'mcp-method': message.method, ...(name ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, ...(request as object) }),
    });
    const body = (await response.json()) as { result?: any; error?: any };
    return body.error ? { kind: 'error', error: body.error } : { kind: 'result', result: body.result };
  };
}

/** The official SDK v2 client, pinned to the current revision and declaring the Tasks extension. */
export async function tasksClient(baseUrl: string, bearer: string) {
  const info = { name: 'concierge-test-tasks', version: '1.0.0' };
  const client = new ModernClient(info, { capabilities: { extensions: TASKS }, versionNegotiation: { mode: { pin: MODERN_REVISION } } });
  await client.connect(new ModernHttpTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
  return client;
}

/** The ext-tasks session over a tasksClient, as a host drives bookings as tasks. */
export function tasksSession(client: ModernClient, baseUrl: string, bearer: string, options: Pick<CreateTaskSessionFromClientOptions, 'onInputRequest'> = {}) {
  return createTaskSessionFromClient(client, {
    endpointId: 'concierge-test',
    rawDispatch: rawDispatch(baseUrl, bearer),
    v2RequestFraming: { protocolVersion: MODERN_REVISION, clientInfo: { name: 'concierge-test-tasks', version: '1.0.0' }, clientCapabilities: { extensions: TASKS } },
    ...options,
  });
}

/** One hand-written request of the current revision, declaring the Tasks extension unless told otherwise. */
export async function taskRpc(service: TestService, bearer: string, method: string, params: Record<string, unknown>, declare = true) {
  const request = modernRequest(method, params, declare ? WITH_TASKS : {});
  const name = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {};
  return rpc(service.url, request.body, { bearer, headers: { ...request.headers, ...name } });
}
