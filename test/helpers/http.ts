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
