import { CardCheckFailed, CardStepReached, GuardRefusal, HttpStatusError, MissingElement, navigatedAway, PageUnresponsive } from './guard/page-errors.ts';
import { timeLimit } from '../browser/time-limit.ts';
import { oneLine, ProviderFailure } from '../driver/failures.ts';

// How a provider attempt can end without a booking, and how raw errors (Playwright's, the page
// API's, the drivers') are read as one of these. Messages are one line, with no stack, selector
// dump or page content beyond what a person needs.

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
  // A page that went on by itself while a step acted on it: the next try meets it from the start.
  if (navigatedAway(error)) return new ProviderFailure('transient', 'the page changed while it was being read (it navigated by itself)');
  if (/has been closed|Target closed|browser has disconnected/i.test(message)) return new ProviderFailure('transient', 'the browser tab closed unexpectedly');
  return new ProviderFailure('unexpected_page', oneLine(message));
}
