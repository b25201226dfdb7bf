import { createHash } from 'node:crypto';
import { randomSecret, sha256 } from '../security/secrets.ts';

// Lifetimes of the OAuth artefacts (the contract's Limits table).
export const CODE_TTL_SECONDS = 10 * 60;
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 10 * 60;

/**
 * A fresh opaque credential (256 random bits, base64url) and the SHA-256 digest that is all the
 * database ever holds of it. The prefix only tells a person what they are looking at.
 */
export function mint(prefix: string): { value: string; hash: string } {
  const value = `${prefix}${randomSecret(32)}`;
  return { value, hash: sha256(value) };
}

/** base64url(SHA-256(verifier)): the S256 PKCE challenge (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** A PKCE verifier: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 §4.1). */
export const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is a base64url SHA-256: exactly 43 characters. */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function secondsFromNow(seconds: number): Date {
  return new Date(Date.now() + seconds * 1000);
}
