import { CardCheckFailed, CardStepReached, GuardRefusal, HttpStatusError, MissingElement, PageUnresponsive } from './guard/page-errors.ts';
import { timeLimit } from '../browser/time-limit.ts';

// How a provider attempt can end without a booking, and how raw errors (Playwright's, the page
// API's, the drivers') are read as one of these. Messages are one line, with no stack, selector
// dump or page content beyond what a person needs.

export type FailureKind =
  | 'no_availability' // the site has nothing acceptable under the consent
  | 'login_wall' // the site wants a signed-in member
  | 'captcha' // the site wants a human to solve a CAPTCHA
  | 'outage' // the site is down (HTTP 503)
  | 'transient' // errors a retry may cure (HTTP 502, 504, 429, timeouts, dropped connections)
  | 'unexpected_page' // the page is not what the driver knows (changed or broken site)
  | 'blocked_address' // the site led the browser off the public web (src/browser/egress.ts)
  | 'error'; // anything else

export class ProviderFailure extends Error {
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.name = 'ProviderFailure';
    this.kind = kind;
  }
}

/** Why a run stopped before its end. */
/**
 * Why a run stops before its outcome. soft_cap: consent.maxJobDurationSeconds passed, and the run
 * stopped at the next step boundary (thrown, never signalled: the step under way finishes first);
 * max_duration_exceeded: the hard ceiling, a multiple of the cap, for a run that hangs.
 */
export type AbortReason = 'max_duration_exceeded' | 'soft_cap' | 'claim_lost' | 'shutting_down';

export class RunAborted extends Error {
  readonly reason: AbortReason;
  constructor(reason: AbortReason) {
    super(reason);
    this.name = 'RunAborted';
    this.reason = reason;
  }
}

/** Rejects with a TimeoutError-like failure if `work` takes longer than `ms` (browser calls with no timeout of their own). */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return timeLimit(work, ms, (): never => {
    throw new ProviderFailure('transient', `the browser did not ${what} within ${Math.round(ms / 1000)} s`);
  });
}

export function oneLine(text: string, max = 300): string {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return first.replace(/\s+/g, ' ').trim().slice(0, max);
}

const TRANSIENT_NET = /net::ERR_(CONNECTION_REFUSED|CONNECTION_RESET|CONNECTION_CLOSED|EMPTY_RESPONSE|TIMED_OUT|NETWORK_CHANGED|INTERNET_DISCONNECTED|ADDRESS_UNREACHABLE|SOCKET_NOT_CONNECTED)/;

/** Reads any error thrown during an attempt as a provider failure. */
export function asFailure(error: unknown): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  if (error instanceof HttpStatusError) {
    return error.status === 503
      ? new ProviderFailure('outage', 'the site is unavailable (HTTP 503)')
      : new ProviderFailure('transient', `the site answered HTTP ${error.status}`);
  }
  if (error instanceof MissingElement) return new ProviderFailure('unexpected_page', error.message);
  if (error instanceof PageUnresponsive) return new ProviderFailure('transient', error.message);
  if (error instanceof GuardRefusal) return new ProviderFailure('error', `the driver tried to fill the card security code field '${error.field}'; the payment guard refused`);
  if (error instanceof CardStepReached) return new ProviderFailure('error', 'unexpected card step');
  // Most likely a frame caught mid-navigation or a tab starved of CPU: the next try may find it settled.
  if (error instanceof CardCheckFailed) return new ProviderFailure('transient', error.message);
  const message = error instanceof Error ? error.message : String(error);
  if (TRANSIENT_NET.test(message)) return new ProviderFailure('transient', `the connection failed (${/net::ERR_[A-Z_]+/.exec(message)?.[0]})`);
  if (/net::ERR_BLOCKED_BY_CLIENT/.test(message)) return new ProviderFailure('error', 'the payment guard blocked the page\'s request');
  if (error instanceof Error && error.name === 'TimeoutError') {
    if (/page\.goto|waitForNavigation|navigat/i.test(message)) return new ProviderFailure('transient', 'the site did not answer in time');
    return new ProviderFailure('unexpected_page', `an expected part of the page did not appear (${oneLine(message, 160)})`);
  }
  if (/has been closed|Target closed|browser has disconnected/i.test(message)) return new ProviderFailure('transient', 'the browser tab closed unexpectedly');
  return new ProviderFailure('unexpected_page', oneLine(message));
}
