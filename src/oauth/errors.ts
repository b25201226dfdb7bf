/**
 * An OAuth protocol error (RFC 6749 §5.2 and friends): the error code and a description for the
 * developer. The HTTP surface decides the status and the envelope ({error, error_description}).
 */
export class OAuthError extends Error {
  readonly error: string;
  /** Set when the client authenticated (or tried to) with HTTP Basic: a 401 then carries a challenge. */
  readonly basic: boolean;
  /** Seconds to wait, for a throttled client. */
  readonly retryAfter?: number;
  constructor(error: string, description: string, options: { basic?: boolean; retryAfter?: number } = {}) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.basic = options.basic ?? false;
    this.retryAfter = options.retryAfter;
  }
}

/**
 * An error_description as RFC 6749 allows it (§4.1.2.1, §5.2): printable ASCII without '"' and
 * '\\' (%x20-21 / %x23-5B / %x5D-7E). Double quotes become single ones, a backslash a slash, any
 * other character (a non-ASCII or control character echoed from the request) '?'.
 */
export function errorDescription(text: string): string {
  return text.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20-\x7e]/g, '?');
}
