import type { Limit } from '../limits/counter.ts';

// Failed client authentications, counted per client id across every node and address (src/limits/).
// Only failures count, and a correct secret is checked before the count is: an attacker who floods
// a client id with wrong secrets cannot refuse the real holder, who still gets tokens. Beyond the
// limit, a failure is answered 429 with Retry-After instead of 401, telling a misconfigured client
// or a guesser to back off; guessing a 256-bit secret online is hopeless either way (docs/oauth.md).
export const CLIENT_AUTH_LOCKOUT: Limit = { name: 'oauth.client_auth_failures', max: 10, windowSeconds: 5 * 60 };
