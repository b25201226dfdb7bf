import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { AddressPolicyError, isPublicAddress, publicOnlyLookup } from './address-policy.ts';

// One GET of a small document at a URL someone else chose (a client metadata document), with the
// limits such a fetch needs: only public addresses unless the policy allows private ones, checked
// on the address actually connected to (the socket's own lookup, so a name that resolves to a
// public address when checked and to a private one when connecting cannot slip through), a
// deadline for the whole exchange, a size limit counted on the bytes received, and no redirects.

export interface GuardedFetchPolicy {
  /** Loopback and private addresses may be reached (development and tests only). */
  allowPrivate: boolean;
  /** Deadline for the whole exchange, connection to last byte. */
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
}

export interface FetchedDocument {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export class GuardedFetchError extends Error {
  override name = 'GuardedFetchError';
}

/** GETs `url` within the policy's limits. Throws GuardedFetchError with a reason fit to show the client. */
export function guardedGet(url: URL, policy: GuardedFetchPolicy, accept = 'application/json'): Promise<FetchedDocument> {
  const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!policy.allowPrivate) {
    if (isIP(literal) && !isPublicAddress(literal)) return Promise.reject(new GuardedFetchError(`${literal} is not a public address`));
    if (literal === 'localhost' || literal.endsWith('.localhost')) return Promise.reject(new GuardedFetchError(`${literal} is this machine (loopback)`));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      request.destroy();
      reject(new GuardedFetchError(reason));
    };
    const timer = setTimeout(() => fail(`no complete answer within ${policy.timeoutMs} ms`), policy.timeoutMs);
    const request = send(url, {
      method: 'GET',
      headers: { accept },
      ...(policy.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(new GuardedFetchError(error instanceof AddressPolicyError ? error.message : `could not be fetched (${(error as NodeJS.ErrnoException).code ?? error.message})`));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        clearTimeout(timer);
        return fail(`answered with a redirect (${status}); the document must be served at its own URL`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > policy.maxBytes) {
        clearTimeout(timer);
        return fail(`is larger than ${policy.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > policy.maxBytes) {
          clearTimeout(timer);
          fail(`is larger than ${policy.maxBytes} bytes`);
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(timer);
        if (size <= policy.maxBytes) resolve({ status, headers: response.headers, body: Buffer.concat(chunks) });
      });
      response.on('error', () => undefined); // the request's error (or the deadline) has answered
    });
    request.end();
  });
}
