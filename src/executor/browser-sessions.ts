import type { Page } from 'playwright-core';
import { runningTab } from '../browser/running-tabs.ts';
import type { CancelResult } from './held-session.ts';
import type { HoldRegistry } from './holds.ts';
import type { Canceller } from './hold-endings.ts';

// What the handoff (and a cancel) needs of the executor's browser sessions. The executor owns them (it holds the
// tab at the card-code step, ends the hold when it runs out, detects the provider's confirmation);
// the handoff shows the tab to the person and hands them the keyboard.

export interface BrowserSessions {
  /** The held tab of a job paused at the card-code step, when this process holds it. */
  heldPage(jobId: string): Page | null;
  /** The tab a running job is driving right now (it changes when the run moves to another provider). */
  runningPage(jobId: string): Page | null;
  /**
   * Who is in control of the held tab. While the person is, automation takes no action on it and
   * the payment guard stands aside for that tab only (their own card code must reach the provider).
   */
  setUserInControl(jobId: string, userInControl: boolean): Promise<void>;
  /**
   * The person cancels: the holder ends the job (error, cancelled_by_user, audit event) and closes
   * the session; or refuses while a payment from the tab awaits the provider's answer. When the
   * session is held by another process, the job is ended here unless that process vouches for a
   * payment in flight, and it closes its tab at its next heartbeat.
   */
  cancel(jobId: string, by?: Canceller): Promise<CancelResult>;
}

/** How a cancel reaches the node holding the tab when this process does not: its result, or null when no live node holds it. */
export interface RemoteHolds {
  cancel(jobId: string, by?: Canceller): Promise<CancelResult | null>;
}

/**
 * The executor's sessions in this process: its hold registry, and the tabs of its running jobs. A
 * cancel for a tab held elsewhere goes to its holder (`remote`), which checks the provider's
 * confirmation and closes the tab at once; with no live holder the row is ended here.
 */
export function executorSessions(holds: Pick<HoldRegistry, 'get' | 'cancelElsewhere'>, remote?: RemoteHolds): BrowserSessions {
  const held = (jobId: string) => {
    const session = holds.get(jobId);
    return session && !session.isEnded() ? session : null;
  };
  return {
    heldPage: (jobId) => held(jobId)?.page ?? null,
    runningPage: (jobId) => runningTab(jobId),
    setUserInControl: async (jobId, userInControl) => {
      await held(jobId)?.setUserInControl(userInControl);
    },
    cancel: async (jobId, by) => {
      const local = held(jobId);
      if (local) return local.cancel(by);
      return (await remote?.cancel(jobId, by)) ?? holds.cancelElsewhere(jobId, by);
    },
  };
}
