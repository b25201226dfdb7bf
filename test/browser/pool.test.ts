import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { BrowserPool } from '../../src/browser/pool.ts';

// A remote browser (BROWSER_WS_ENDPOINT) that takes the connection and never answers its handshake:
// the job's browser request fails within the connect limit, and closing the pool does not wait on it.

describe('browser pool: a remote browser that never answers', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let port: number;

  before(async () => {
    // Accepts TCP and reads what it is sent, but never writes a byte back.
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const [kind, path] of [['playwright server', '/browser'], ['CDP endpoint', '/devtools/browser/x']] as const) {
    test(`${kind}: the browser request fails within the connect limit, and close() returns`, async () => {
      const pool = new BrowserPool({ chromiumPath: '/usr/bin/chromium', wsEndpoint: `ws://127.0.0.1:${port}${path}`, connectTimeoutMs: 1_000 });
      const started = Date.now();
      const request = pool.browser();
      const closing = pool.close();
      await assert.rejects(request, /Timeout|timeout/);
      await closing;
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    });
  }
});
