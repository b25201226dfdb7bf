import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL). `cut()` makes the database
 * unreachable for whoever connects through the proxy, honestly: open connections are reset and new
 * ones are refused, exactly what a service sees when its database host goes away. `restore()`
 * listens again on the same port.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const makeServer = () =>
    createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
  let server: Server | null = makeServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const cut = async () => {
    const closing = server;
    server = null;
    if (closing) {
      const closed = once(closing, 'close');
      closing.close();
      for (const socket of sockets) socket.resetAndDestroy();
      await closed;
    }
  };
  return {
    port,
    cut,
    async restore() {
      if (server) return;
      server = makeServer();
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: cut,
  };
}
