import { createHmac, timingSafeEqual } from 'node:crypto';

// How nodes trust each other on their internal ports (src/cluster/internal-server.ts). Every call
// carries a signature of its method, path and time under a key derived from SECRET_KEY, which every
// node of one deployment shares (outside production it is generated once and kept in the database,
// so processes sharing DATABASE_URL share it too). A signature is good for SIGNATURE_WINDOW_MS either
// side of its time: a call copied off the wire is useless soon after, and nothing but a node holding
// the key can make one. The key itself never leaves the process.

export const NODE_AUTH_HEADER = 'x-concierge-node-auth';
/** How far a signed call's time may be from the receiver's clock (clock skew included). */
export const SIGNATURE_WINDOW_MS = 30_000;

const PURPOSE = 'concierge node-to-node v1';

/** The key nodes sign their calls to each other with (an HMAC of a fixed purpose under SECRET_KEY: never the secret itself). */
export function nodeKey(secretKey: string): Buffer {
  return createHmac('sha256', secretKey).update(PURPOSE).digest();
}

function signature(key: Buffer, time: number, method: string, path: string): Buffer {
  return createHmac('sha256', key).update(`${time}\n${method.toUpperCase()}\n${path}`).digest();
}

/** The header value that authenticates one call (`path` with its query, as the receiver sees it). */
export function signCall(key: Buffer, method: string, path: string, now = Date.now()): string {
  return `t=${now},v1=${signature(key, now, method, path).toString('base64url')}`;
}

/** Whether `header` is a valid signature of this call, made within the window. */
export function verifyCall(key: Buffer, method: string, path: string, header: string | string[] | undefined, now = Date.now()): boolean {
  if (typeof header !== 'string' || header.length > 200) return false;
  const match = /^t=(\d{1,15}),v1=([A-Za-z0-9_-]{43})$/.exec(header);
  if (!match) return false;
  const time = Number(match[1]);
  if (!Number.isSafeInteger(time) || Math.abs(now - time) > SIGNATURE_WINDOW_MS) return false;
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = signature(key, time, method, path);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
