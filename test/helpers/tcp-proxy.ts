import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL). `cut()` makes the database
 * unreachable for whoever connects through the proxy, honestly: open connections are reset and new
 * ones are refused, exactly what a service sees when its database host goes away. `restore()`
 * listens again on the same port.
 *
 * `freeze()` is the quieter failure: the database stops answering but nothing is closed, as when a
 * network partition, a firewall or NAT that forgot the connections, or a hung host stands between
 * service and database. Every open connection stays open and passes no more bytes, for good (the
 * kernel on this side still acknowledges, so TCP keepalive sees nothing wrong); new connections are
 * accepted and get no further. `restore()` lets new connections through again; the frozen ones stay
 * dead until the service gives up on them, or until `cut()`/`close()` resets them.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  freeze(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const flowing = new Set<[Socket, Socket]>();
  let frozen = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const stall = (socket: Socket) => {
    socket.unpipe();
    socket.pause();
  };
  const makeServer = () =>
    createServer((client) => {
      track(client);
      client.on('error', () => {});
      if (frozen) {
        client.pause();
        return;
      }
      const upstream = connect(targetPort, targetHost);
      track(upstream);
      const pair: [Socket, Socket] = [client, upstream];
      flowing.add(pair);
      client.on('close', () => flowing.delete(pair));
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
    async freeze() {
      frozen = true;
      for (const pair of flowing) pair.forEach(stall);
      flowing.clear();
    },
    async restore() {
      frozen = false;
      if (server) return;
      server = makeServer();
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: cut,
  };
}

/** `url` (a PostgreSQL URL) reached through `proxy` instead. */
export function viaProxy(url: string, proxy: TcpProxy): string {
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return proxied.toString();
}
