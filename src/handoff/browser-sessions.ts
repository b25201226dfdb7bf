import type { Page } from 'playwright-core';

// What the handoff needs of the executor's browser sessions. The executor owns them (it holds the
// tab at the card-code step, releases it when the hold ends, detects the provider's confirmation);
// the handoff only shows the tab to the person and hands them the keyboard.

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
  /** Closes the held session of a job the person cancelled (its status has already moved). */
  release(jobId: string): Promise<void>;
}

/** No browser sessions in this process (API-only instances; tests of pages without a browser). */
export const noBrowserSessions: BrowserSessions = {
  heldPage: () => null,
  runningPage: () => null,
  setUserInControl: async () => {},
  release: async () => {},
};
