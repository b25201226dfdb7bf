import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AddressPolicyError, assertPublicUrl, publicOnlyLookup } from '../net/address-policy.ts';

// One delivery attempt: a POST of the signed payload to the endpoint's URL, guarded against
// server-side request forgery and bounded in time and size. Unless private addresses are allowed
// (development), the URL must be public, and so must every address its name resolves to when the
// connection is made (checked again at connect time, so a name that changes its answer between the
// check and the connection, DNS rebinding, still cannot reach inside). Redirects are not followed: a
// 3xx is a failed attempt, as any answer outside 2xx is.

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface SendResult {
  ok: boolean;
  /** The HTTP status, when the endpoint answered. */
  status: number | null;
  latencyMs: number;
  /** Why the attempt failed, in one line (no response body, which the endpoint controls). */
  error: string | null;
}

/** The most of an answer read (and thrown away): an endpoint cannot make the service read without end. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export async function postSigned(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    await assertPublicUrl(url, { allowPrivate: options.allowPrivate });
  } catch (error) {
    return { ok: false, status: null, latencyMs: elapsed(), error: `refused: the URL ${(error as Error).message}` };
  }
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (res: IncomingMessage) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({ ok, status, error: ok ? null : status >= 300 && status < 400 ? `answered ${status} (redirects are not followed)` : `answered ${status}` });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status: null, error: `no answer within ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error: Error & { code?: string }) => {
      finish({ ok: false, status: null, error: error instanceof AddressPolicyError ? `refused: ${error.message}` : `could not connect (${error.code ?? error.message})` });
    });
    req.end(body);
  });
}
