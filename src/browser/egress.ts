import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net, { isIPv4, isIPv6, type AddressInfo } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { BrowserContext, Request, Response } from 'playwright-core';
import { isPublicAddress } from '../net/address-policy.ts';

// The executor's browser reaches only the public web (in production): every connection it makes —
// navigations and redirects, frames, subresources, fetch and XHR, WebSockets — goes through this
// proxy (each browser context is given it, with credentials of its own), which resolves the host
// once, refuses it when any address it resolves to is not public (the same rules as every other
// outbound fetch: src/net/address-policy.ts), and connects to the very address it checked, so a
// second DNS answer cannot slip through. A refusal is kept against the context that asked, so the
// executor can end that provider's attempt with the host it was led to.

export interface EgressOptions {
  /** Whether the browser may connect to this address (default: public addresses only). */
  allowed?: (address: string) => boolean;
  /** A host name's addresses (default: the system resolver, every address). */
  resolve?: (host: string) => Promise<string[]>;
}

/** One browser context's way through the proxy, and what the proxy refused it. */
interface Ticket {
  username: string;
  password: string;
  /** Hosts refused to this context, in order ("169.254.169.254", "intranet.example (10.0.0.5)"). */
  refused: string[];
  /** Of those, the ones a navigation of one of its pages was refused (a page or a frame). */
  navigations: string[];
}

const REFUSED_HEADER = 'x-concierge-egress';

/** Each proxied context's ticket: what the executor asks when an attempt fails. */
const ticketOfContext = new WeakMap<BrowserContext, Ticket>();

/** The hosts this context's pages were refused navigating to, from the `since`-th refusal on. */
export function refusedNavigations(context: BrowserContext, since = 0): string[] {
  return (ticketOfContext.get(context)?.navigations ?? []).slice(since);
}

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

export class EgressProxy {
  readonly #server: http.Server;
  readonly #allowed: (address: string) => boolean;
  readonly #resolve: (host: string) => Promise<string[]>;
  readonly #tickets = new Map<string, Ticket>();
  readonly #sockets = new Set<net.Socket>();
  #url = '';

  private constructor(options: EgressOptions) {
    this.#allowed = options.allowed ?? isPublicAddress;
    this.#resolve = options.resolve ?? systemResolve;
    this.#server = http.createServer((req, res) => void this.#forward(req, res));
    this.#server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void this.#tunnel(req, socket, head));
    this.#server.on('connection', (socket: net.Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Listens on a loopback port of its own. */
  static async start(options: EgressOptions = {}): Promise<EgressProxy> {
    const proxy = new EgressProxy(options);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.#url = `http://127.0.0.1:${(proxy.#server.address() as AddressInfo).port}`;
    return proxy;
  }

  /**
   * The proxy settings for a new browser context (Playwright's `proxy` option), with credentials of
   * its own. Loopback is not bypassed: Chromium would otherwise reach localhost directly.
   */
  settingsFor(): { server: string; username: string; password: string; bypass: string } {
    const ticket: Ticket = { username: randomBytes(9).toString('base64url'), password: randomBytes(18).toString('base64url'), refused: [], navigations: [] };
    this.#tickets.set(ticket.username, ticket);
    return { server: this.#url, username: ticket.username, password: ticket.password, bypass: '<-loopback>' };
  }

  /** Ties a context made with `settings` to its ticket (its refusals), and lets the ticket go with it. */
  adopt(context: BrowserContext, settings: { username: string }): void {
    const ticket = this.#tickets.get(settings.username);
    if (!ticket) return;
    ticketOfContext.set(context, ticket);
    // A refused navigation shows as a failed request (a tunnel refused) or as the proxy's own answer.
    const navigation = (request: Request) => {
      if (!request.isNavigationRequest()) return;
      const host = hostOf(request.url());
      const refused = ticket.refused.find((r) => r === host || r.startsWith(`${host} (`));
      if (refused && !ticket.navigations.includes(refused)) ticket.navigations.push(refused);
    };
    context.on('requestfailed', navigation);
    context.on('response', (response: Response) => {
      if (response.headers()[REFUSED_HEADER]) navigation(response.request());
    });
    context.on('close', () => this.#tickets.delete(ticket.username));
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #ticketOf(req: http.IncomingMessage): Ticket | null {
    const header = req.headers['proxy-authorization'] ?? '';
    const m = /^Basic\s+(\S+)$/i.exec(header);
    if (!m) return null;
    const [username = '', password = ''] = Buffer.from(m[1]!, 'base64').toString('utf8').split(':');
    const ticket = this.#tickets.get(username);
    if (!ticket) return null;
    const a = Buffer.from(password);
    const b = Buffer.from(ticket.password);
    return a.length === b.length && timingSafeEqual(a, b) ? ticket : null;
  }

  /** The address to connect to for `host`, or why not: every address it resolves to must be allowed. */
  async #check(host: string): Promise<{ address: string } | { refused: string }> {
    const bare = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
    if (isIPv4(bare) || isIPv6(bare)) return this.#allowed(bare) ? { address: bare } : { refused: bare };
    if (bare === 'localhost' || bare.endsWith('.localhost')) return { refused: bare };
    let addresses: string[];
    try {
      addresses = await this.#resolve(bare);
    } catch {
      addresses = [];
    }
    const inner = addresses.find((a) => !this.#allowed(a));
    if (addresses.length === 0) return { refused: `${bare} (does not resolve)` };
    if (inner) return { refused: `${bare} (${inner})` };
    return { address: addresses[0]! };
  }

  /** CONNECT host:port (https, wss, and ws through a proxy): a tunnel to the checked address. */
  async #tunnel(req: http.IncomingMessage, socket: net.Socket, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const ticket = this.#ticketOf(req);
    if (!ticket) {
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="egress"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const target = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!target) return void socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    const checked = await this.#check(target[1]!);
    if ('refused' in checked) {
      ticket.refused.push(checked.refused);
      socket.end(`HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect(Number(target[2]), checked.address, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    this.#sockets.add(upstream);
    upstream.on('close', () => this.#sockets.delete(upstream));
    upstream.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
  }

  /** A plain http:// request in absolute form: forwarded to the checked address, its Host kept. */
  async #forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const ticket = this.#ticketOf(req);
    if (!ticket) return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="egress"', 'content-length': '0' }).end();
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400, { 'content-length': '0' }).end();
    }
    if (url.protocol !== 'http:') return void res.writeHead(400, { 'content-length': '0' }).end();
    const checked = await this.#check(url.hostname);
    if ('refused' in checked) {
      ticket.refused.push(checked.refused);
      const body = `Refused by the booking service's egress policy: ${url.hostname} is not on the public internet.`;
      return void res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', [REFUSED_HEADER]: 'refused', 'content-length': Buffer.byteLength(body) }).end(body);
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request({ host: checked.address, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-length': '0' });
      res.end();
    });
    req.pipe(upstream);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return '';
  }
}
