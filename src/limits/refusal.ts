import type { Limit, Verdict } from './counter.ts';

/** A request beyond a limit; each surface answers it in its own envelope (429 with Retry-After). */
export class RateLimited extends Error {
  readonly limit: Limit;
  readonly verdict: Verdict;
  constructor(limit: Limit, verdict: Verdict, message = `rate limit reached; retry in ${verdict.resetSeconds} s`) {
    super(message);
    this.name = 'RateLimited';
    this.limit = limit;
    this.verdict = verdict;
  }

  get retryAfter(): number {
    return this.verdict.resetSeconds;
  }
}

/**
 * The IETF headers (draft-ietf-httpapi-ratelimit-headers): the policy (quota q per window w
 * seconds) and what is left of it now (r remaining, t seconds until the window ends), each
 * naming the policy by the limit's name.
 */
export function rateLimitHeaders(limit: Limit, verdict: Verdict): Record<string, string> {
  return {
    'ratelimit-policy': `"${limit.name}";q=${limit.max};w=${limit.windowSeconds}`,
    ratelimit: `"${limit.name}";r=${verdict.remaining};t=${verdict.resetSeconds}`,
  };
}
