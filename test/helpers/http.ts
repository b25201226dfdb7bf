import type { BrowserContext } from 'playwright-core';

/** The Cookie header `context` would send to `origin`: for plain HTTP requests made as that browser. */
export async function cookieHeader(context: BrowserContext, origin: string): Promise<string> {
  return (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
}

/** A small JSON client over real sockets, as an API client would call the service. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(baseUrl: string, method: string, path: string, options: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let payload: string | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the test looks at `text`.
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * A request over node:http with exactly the headers given (fetch adds a Content-Type of its own to
 * string bodies, which hides what a client sending none would see).
 */
export async function rawCall(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Reply> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // Not JSON: the test looks at `text`.
        }
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) h.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: res.statusCode ?? 0, headers: h, body: parsed, text });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

/**
 * Sends `request` as raw bytes over a TCP socket and reads the reply until the server closes the
 * connection: for requests no HTTP client would send (a Content-Length that is not a number).
 * The request should ask for `Connection: close` if it is well-formed enough to be answered.
 */
export async function rawRequest(baseUrl: string, request: string | Buffer): Promise<Reply> {
  const { connect } = await import('node:net');
  const { hostname, port } = new URL(baseUrl);
  const received = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
  const text = received.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, split < 0 ? text.length : split).split('\r\n');
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const bodyText = split < 0 ? '' : text.slice(split + 4);
  let body: any;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    // Not JSON: the test looks at `text`.
  }
  return { status: Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body, text: bodyText };
}
