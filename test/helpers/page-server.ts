import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page server on loopback for one test: its origin, and close() that resolves once it has stopped. */
export async function servePages(handler: RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
