import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Webhook signing secrets. A Standard Webhooks secret is `whsec_` + base64 of random bytes; the
// service signs every delivery with it, so it cannot be kept as a hash like the other secrets. It is
// kept encrypted (AES-256-GCM) under a key derived from SECRET_KEY (HKDF-SHA256, its own label), and
// shown to the client once, when it is made.

const PREFIX = 'whsec_';
const VERSION = 'v1';

/** A new signing secret: 32 random bytes, as Standard Webhooks writes them. */
export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyFrom(secretKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'concierge', 'webhook-signing-secrets', 32));
}

export function encryptSecret(secretKey: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(secretKey), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(':');
}

export function decryptSecret(secretKey: string, stored: string): string {
  const [version, iv, body, tag] = stored.split(':');
  if (version !== VERSION || !iv || !body || !tag) throw new Error('not an encrypted webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', keyFrom(secretKey), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
