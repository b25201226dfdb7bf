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
