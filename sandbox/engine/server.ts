/**
 * One node:http server for the whole sandbox. Routes by the Host header
 * (`<label>.localhost:<port>`), scans every request (and WebSocket message)
 * for card codes before any handler sees it, and never logs values.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { scanJson, scanRequest } from './cardcodes.ts';
import { parseCookies, type Req, type Res } from './http.ts';
import type { SandboxState } from './state.ts';

export type HostHandler = (req: Req) => Res | Promise<Res>;

const MAX_BODY = 1024 * 1024;

export function hostLabel(hostHeader: string | undefined): string | null {
  if (!hostHeader) return null;
  const host = hostHeader.toLowerCase().replace(/:\d+$/, '');
  const m = /^([a-z0-9-]+)\.localhost\.?$/.exec(host);
  return m?.[1] ?? null;
}

/** `www.aerolux.localhost:4100` -> `aerolux` (one subdomain level). */
function subdomainOf(hostHeader: string | undefined): string | null {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '');
  return /^[a-z0-9-]+\.([a-z0-9-]+)\.localhost\.?$/.exec(host)?.[1] ?? null;
}

function record(state: SandboxState, host: string, path: string, fields: string[]): void {
  const at = new Date();
  for (const field of fields) state.receipts.push({ host, path, field, at });
}

function unknownHost(): Res {
  return {
    status: 404,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unknown host</title></head><body><h1>404 — unknown host</h1><p>No sandbox site is served on this host name.</p></body></html>',
  };
}

export interface SandboxServer {
  server: http.Server;
  /** Stops listening and drops every connection, WebSockets included. */
  close(): Promise<void>;
}

export function createSandboxServer(
  state: SandboxState,
  handlers: ReadonlyMap<string, HostHandler>,
  webSocketPaths: ReadonlyMap<string, ReadonlySet<string>>,
): SandboxServer {
  const upgraded = new Set<Duplex>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooLarge = true;
      else chunks.push(c);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      void (async () => {
        const label = hostLabel(req.headers.host);
        const hostHeader = (req.headers.host ?? '').toLowerCase();
        const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
        const body = Buffer.concat(chunks);
        const contentType = String(req.headers['content-type'] ?? '');
        const extra = (label && state.extraCardFields.get(label)) || new Set<string>();
        record(state, hostHeader, url.pathname, scanRequest(url.searchParams, body, contentType, extra));
        let out: Res;
        // `<sub>.<label>.localhost` reaches the handler registered as `*.<label>` (corpus sites span subdomains).
        const wildcard = label ? undefined : subdomainOf(req.headers.host);
        const handler = label ? handlers.get(label) : wildcard ? handlers.get(`*.${wildcard}`) : undefined;
        if (tooLarge) {
          out = { status: 413, headers: { 'content-type': 'text/plain' }, body: 'Request body too large' };
        } else if (!handler) {
          out = unknownHost();
        } else {
          const request: Req = {
            method: req.method ?? 'GET',
            host: hostHeader,
            path: url.pathname,
            query: url.searchParams,
            form: /application\/x-www-form-urlencoded/i.test(contentType) ? new URLSearchParams(body.toString('utf8')) : new URLSearchParams(),
            cookies: parseCookies(req.headers.cookie),
            contentType,
            body,
          };
          try {
            out = await handler(request);
          } catch (err) {
            console.error('sandbox handler error:', err instanceof Error ? err.message : 'unknown error');
            out = { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal error' };
          }
        }
        if (out.delayMs) await new Promise((resolve) => setTimeout(resolve, out.delayMs));
        if (out.heldUntil) await out.heldUntil;
        res.writeHead(out.status, out.headers);
        res.end(req.method === 'HEAD' ? undefined : out.body);
      })();
    });
  });

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    const label = hostLabel(req.headers.host);
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const key = req.headers['sec-websocket-key'];
    const extra = (label && state.extraCardFields.get(label)) || new Set<string>();
    record(state, hostHeader, url.pathname, scanRequest(url.searchParams, Buffer.alloc(0), '', extra));
    if (!label || !webSocketPaths.get(label)?.has(url.pathname) || typeof key !== 'string') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    const accept = createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    acceptWebSocket(socket, (message) => {
      const fields: string[] = [];
      const trimmed = message.trim();
      let parsed = false;
      if (/^[[{]/.test(trimmed)) {
        try {
          scanJson(JSON.parse(trimmed), extra, '', fields);
          parsed = true;
        } catch {
          /* not JSON */
        }
      }
      if (!parsed) fields.push(...scanRequest(new URLSearchParams(), Buffer.from(message), 'text/plain', extra));
      record(state, hostHeader, url.pathname, [...new Set(fields)]);
    });
  });
  let closing: Promise<void> | null = null;
  return {
    server,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
      });
      return closing;
    },
  };
}

/** Minimal RFC 6455 server side: reads (masked) text frames, answers ping/close. */
function acceptWebSocket(socket: Duplex, onText: (message: string) => void): void {
  let buf = Buffer.alloc(0);
  let fragments: Buffer[] = [];
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const b0 = buf[0] ?? 0;
      const b1 = buf[1] ?? 0;
      const fin = (b0 & 0x80) !== 0;
      const opcode = b0 & 0x0f;
      const masked = (b1 & 0x80) !== 0;
      let len = b1 & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        offset = 10;
      }
      if (len > MAX_BODY) {
        socket.destroy();
        return;
      }
      const maskLen = masked ? 4 : 0;
      if (buf.length < offset + maskLen + len) return;
      const mask = buf.subarray(offset, offset + maskLen);
      const payload = Buffer.from(buf.subarray(offset + maskLen, offset + maskLen + len));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
      buf = buf.subarray(offset + maskLen + len);
      if (opcode === 0x8) {
        socket.end(Buffer.from([0x88, 0x00]));
        return;
      }
      if (opcode === 0x9) {
        socket.write(Buffer.concat([Buffer.from([0x8a, payload.length]), payload.subarray(0, 125)]));
        continue;
      }
      if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
        fragments.push(payload);
        if (fin) {
          onText(Buffer.concat(fragments).toString('utf8'));
          fragments = [];
          socket.write(Buffer.from([0x81, 0x02, 0x6f, 0x6b])); // "ok"
        }
      }
    }
  });
}
