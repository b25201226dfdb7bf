import type { CardCodeReceipt } from './cardcodes.ts';
import type { CorpusId } from '../corpus/ids.ts';
import type { Booking, ProviderId, Session } from './types.ts';

export interface FlakySearch {
  provider: ProviderId;
  venue: string;
  failedAt: number;
  retriedAt: number | null;
}

/** Mutable state of one running sandbox. */
export interface SandboxState {
  holdSeconds: number;
  port: number;
  sessions: Map<string, Session>;
  /** Flaky searches by (provider, venue, date): when the first failed, and when the search came again. */
  flaky: Map<string, FlakySearch>;
  receipts: CardCodeReceipt[];
  confirmations: Array<{ provider: ProviderId | CorpusId; code: string; paidWithCard: boolean }>;
  /** Extra exact card-code field names per host label (e.g. adversarial -> f7). */
  extraCardFields: Map<string, Set<string>>;
  /** Each corpus site's bookings, by site (the built-in sites' are in their sessions). */
  corpusBookings: Map<CorpusId, Map<string, Booking>>;
  /** While a test holds them (Sandbox.holdSlowPayAnswers), Slow Pay answers also wait for this. */
  slowPayHeld: Promise<void> | null;
}

export function newState(holdSeconds: number): SandboxState {
  return {
    holdSeconds,
    port: 0,
    sessions: new Map(),
    flaky: new Map(),
    receipts: [],
    confirmations: [],
    extraCardFields: new Map(),
    corpusBookings: new Map(),
    slowPayHeld: null,
  };
}
