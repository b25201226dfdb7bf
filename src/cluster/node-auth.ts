import { createHmac, timingSafeEqual } from 'node:crypto';

// How nodes trust each other on their internal ports (src/cluster/internal-server.ts). Every call
// carries a signature of its method, path and time under a key derived from SECRET_KEY, which every
// node of one deployment shares (outside production it is generated once and kept in the database,
// so processes sharing DATABASE_URL share it too). A signature is good for SIGNATURE_WINDOW_MS either
// side of its time, and once: the receiver records each one it accepts (used-calls.ts), so a call
// copied off the wire cannot be sent again, to this node or another. Nothing but a node holding the
// key can make one; the key itself never leaves the process. The header keeps the format of the
// releases before single use, so nodes of both kinds still answer each other during a rolling deploy
// (a node of an older release records nothing, so single use holds once every node runs this one).

export const NODE_AUTH_HEADER = 'x-concierge-node-auth';
/** How far a signed call's time may be from the receiver's clock (clock skew included). */
export const SIGNATURE_WINDOW_MS = 30_000;

const PURPOSE = 'concierge node-to-node v1';

/** A call whose signature checked out: what identifies it for the single-use check, and when it was signed. */
export interface SignedCall {
  signature: string;
  /** The signature's time, on the signer's clock. */
  time: number;
}

/** The key nodes sign their calls to each other with (an HMAC of a fixed purpose under SECRET_KEY: never the secret itself). */
export function nodeKey(secretKey: string): Buffer {
  return createHmac('sha256', secretKey).update(PURPOSE).digest();
}

function signature(key: Buffer, time: number, method: string, path: string): Buffer {
  return createHmac('sha256', key).update(`${time}\n${method.toUpperCase()}\n${path}`).digest();
}

let lastSigningTime = 0;

/**
 * Now, or a millisecond past this process's last signing time: two calls of one path signed in the
 * same millisecond would be one signature, and the second refused as a replay of the first. Two
 * processes doing so stay possible and vanishingly rare; the second caller is then refused as by a
 * node it cannot reach, and falls back as it would then.
 */
function nextSigningTime(): number {
  lastSigningTime = Math.max(Date.now(), lastSigningTime + 1);
  return lastSigningTime;
}

/** The header value that authenticates one call (`path` with its query, as the receiver sees it). */
export function signCall(key: Buffer, method: string, path: string, now = nextSigningTime()): string {
  return `t=${now},v1=${signature(key, now, method, path).toString('base64url')}`;
}

/** The call `header` signs, when it is a valid signature of this call made within the window; else null. Whether it was used before is used-calls.ts's to say. */
export function verifyCall(key: Buffer, method: string, path: string, header: string | string[] | undefined, now = Date.now()): SignedCall | null {
  if (typeof header !== 'string' || header.length > 200) return null;
  const match = /^t=(\d{1,15}),v1=([A-Za-z0-9_-]{43})$/.exec(header);
  if (!match) return null;
  const time = Number(match[1]);
  if (!Number.isSafeInteger(time) || Math.abs(now - time) > SIGNATURE_WINDOW_MS) return null;
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = signature(key, time, method, path);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  // Re-encoded from the digest rather than taken as sent: base64url's last character carries two
  // bits nobody reads, and a time may be sent with leading zeros, so one signature has several
  // spellings, and the single-use check must see one.
  return { signature: expected.toString('base64url'), time };
}
