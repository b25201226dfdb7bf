import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A provider's payment page, paid in the ways real sites pay, for the held-session tests: a form
// POST, a script's fetch answered through a redirect, a GET form, a card partner's iframe, plus a
// long-poll and analytics beacons. The answers that matter wait at a gate the test opens, so
// "the provider has not answered yet" lasts exactly as long as the test needs.
//
// The page is on http://127.0.0.1:<port>; the card partner's iframe on http://localhost:<port> (another origin).

const PAGE = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Pay</title></head><body>${body}</body></html>`;
const CODE_FIELD = '<label for="cvc">Security code</label> <input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric">';

const PAGES: Record<string, string> = {
  // A form POST, answered (after the gate) with a 303 to the confirmation page.
  '/form-post': `<form method="post" action="/charge">${CODE_FIELD}<button id="pay">Pay</button></form>`,
  // A form POST the provider turns down: its answer is a page without a confirmation.
  '/form-post-declined': `<form method="post" action="/decline">${CODE_FIELD}<button id="pay">Pay</button></form>`,
  // A script's fetch POST, answered with a 303 to a result the gate holds; the script then goes to the confirmation.
  '/fetch-redirect': `${CODE_FIELD}<button id="pay">Pay</button><script>
    document.getElementById('pay').onclick = () => fetch('/api/pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'tok_1' }) })
      .then((r) => r.json()).then((j) => { location.href = '/done?code=' + j.code; });
  </script>`,
  // A GET form carrying the code, turned down (after the gate).
  '/get-form': `<form method="get" action="/charge-get">${CODE_FIELD}<button id="pay">Pay</button></form>`,
  // The code field in a card partner's iframe, which submits it with a GET form of its own.
  '/iframe': '<iframe id="partner" title="Card" width="400" height="200"></iframe><script>document.getElementById(\'partner\').src = \'http://localhost:\' + location.port + \'/card\';</script>',
  '/card': `<form method="get" action="/card/submit">${CODE_FIELD}<button id="pay">Pay</button></form>`,
  // A long-poll the server never answers, started by a click.
  '/long-poll': `<button id="start">Chat</button><script>
    document.getElementById('start').onclick = () => fetch('/poll', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'wait' }).catch(() => {});
  </script>`,
  // Analytics: a beacon every 150 ms, from the moment the page loads.
  '/beacons': `${CODE_FIELD}<script>setInterval(() => navigator.sendBeacon('/collect', 'event=tick'), 150);</script>`,
};

export interface PaySite {
  /** http://127.0.0.1:<port><path> */
  url(path: string): string;
  /** Resolves when a request for `path` has arrived and waits at its gate. */
  arrived(path: string): Promise<void>;
  /** Lets the requests waiting at `path`'s gate through; later ones wait at a new gate. */
  open(path: string): void;
  /** Codes of the confirmations issued. */
  confirmations(): string[];
  close(): Promise<void>;
}

interface Gate {
  arrived: Promise<void>;
  signal: () => void;
  opened: Promise<void>;
  open: () => void;
}

export async function startPaySite(): Promise<PaySite> {
  const gates = new Map<string, Gate>();
  const gate = (path: string): Gate => {
    let g = gates.get(path);
    if (!g) {
      let signal!: () => void;
      let open!: () => void;
      const arrived = new Promise<void>((resolve) => (signal = resolve));
      const opened = new Promise<void>((resolve) => (open = resolve));
      g = { arrived, signal, opened, open };
      gates.set(path, g);
    }
    return g;
  };
  const held = async (path: string) => {
    const g = gate(path);
    g.signal();
    await g.opened;
  };
  const issued: string[] = [];
  const confirm = () => {
    const code = `PAY-${issued.length + 1}${Math.random().toString(36).slice(2, 6).toUpperCase()}`;
    issued.push(code);
    return code;
  };
  const html = (res: ServerResponse, body: string, status = 200) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE(body));
  };
  const sockets = new Set<import('node:net').Socket>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    req.resume();
    void (async () => {
      if (PAGES[path]) return html(res, PAGES[path]);
      switch (path) {
        case '/charge':
          await held(path);
          return res.writeHead(303, { location: `/done?code=${confirm()}` }).end();
        case '/decline':
        case '/charge-get':
          await held(path);
          return html(res, `<p id="declined">The payment was declined.</p>${CODE_FIELD}`);
        case '/api/pay':
          return res.writeHead(303, { location: '/api/result' }).end();
        case '/api/result':
          await held(path);
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: confirm() }));
        case '/card/submit':
          await held(path);
          return html(res, '<p id="accepted">Card accepted.</p>');
        case '/done':
          return html(res, `<h1>Confirmed</h1><p data-confirmation-code="${(url.searchParams.get('code') ?? '').replace(/[^\w-]/g, '')}">Booked</p>`);
        case '/poll':
          return; // never answered
        case '/collect':
          return res.writeHead(204).end();
        default:
          return res.writeHead(404).end();
      }
    })();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    arrived: (path) => gate(path).arrived,
    open: (path) => {
      gate(path).open();
      gates.delete(path);
    },
    confirmations: () => [...issued],
    close: async () => {
      for (const g of gates.values()) g.open();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
