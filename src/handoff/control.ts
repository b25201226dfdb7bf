// Which screen controls a held tab. Whoever holds an API-key job's link could otherwise open a
// second controlling view beside the person's and watch them type, or type themselves. So one
// screen at a time: a new one takes over when its connection opens; the previous one is told
// (TAKEN_OVER) and closed, and its page offers to take the tab back. The payment guard stands aside
// for the tab while a screen is in control (or connecting), and covers it again when none is.

/** Why a controlling view ended: another screen opened the payment page (the client offers to take it back). */
export const TAKEN_OVER = 'taken_over';
/** Why a controlling view ended: the same page reconnected (its old connection, dead or dying, is let go). */
export const RECONNECTED = 'reconnected';

/** A screen's open connection to the tab, as far as control is concerned: it can be ended, with a reason its page is told. */
export interface ControlConnection {
  end(reason: string): void;
}

/** What a claim's connection does once open. */
export type OpenOutcome =
  /** This screen controls the tab now. */
  | 'controlling'
  /** Another screen took the tab (while this one connected, or from this page before): end it, TAKEN_OVER. */
  | 'taken_over'
  /** The claim was let go before its connection opened (a slow upgrade): end it; the client connects again. */
  | 'retry';

/** A screen's claim on a held tab, from its request to connect until its connection closes. */
export class ScreenClaim {
  readonly jobId: string;
  readonly tab: object;
  /** The page load it came from (the client's `screen` parameter), when it said. */
  readonly screen: string | null;
  connection: ControlConnection | null = null;
  /** Another screen took over. */
  superseded = false;
  /** Its connection closed, or its handshake never became one. */
  released = false;
  /** Until it opens: the claim it takes the tab from (which keeps the tab if this one never opens). */
  previous: ScreenClaim | null;
  readonly #onRelease: (claim: ScreenClaim) => void;

  constructor(jobId: string, tab: object, screen: string | null, previous: ScreenClaim | null, onRelease: (claim: ScreenClaim) => void) {
    this.#onRelease = onRelease;
    this.jobId = jobId;
    this.tab = tab;
    this.screen = screen;
    this.previous = previous;
  }

  /** Lets go of the tab (its socket closed, or never opened). Once; later calls do nothing. */
  readonly release = (): void => {
    if (this.released) return;
    this.released = true;
    this.#onRelease(this);
  };
}

export class ScreenControl {
  /** The screen in control of (or last to claim) each held tab, by job. */
  readonly #controllers = new Map<string, ScreenClaim>();
  /**
   * Screens taken over, per held tab (gone with it). Such a screen's connection may have dropped
   * before it heard why (a phone offline when another screen took over); its page then reconnects
   * by itself, and must not take the tab back from the screen in control: it is told it was taken
   * over, again. Taking the tab back is the person's choice (the page's button reloads: a new screen).
   */
  readonly #takenOver = new WeakMap<object, Set<string>>();
  readonly #setUserInControl: (jobId: string, userInControl: boolean) => Promise<void>;

  constructor(setUserInControl: (jobId: string, userInControl: boolean) => Promise<void>) {
    this.#setUserInControl = setUserInControl;
  }

  /** A screen another one took the tab from: it may not take it back by reconnecting. */
  wasTakenOver(tab: object, screen: string | null): boolean {
    return screen !== null && (this.#takenOver.get(tab)?.has(screen) ?? false);
  }

  /**
   * A screen asks to control the tab. It claims the tab at once, before the switch to the person is
   * awaited (handOver): a screen that connects, or leaves, meanwhile then finds the tab claimed and
   * does not hand it back to automation. The screen in control keeps it until this one's connection
   * opens. The caller releases the claim when its connection closes or never opens.
   */
  claim(jobId: string, tab: object, screen: string | null): ScreenClaim {
    const claim = new ScreenClaim(jobId, tab, screen, this.#controllers.get(jobId) ?? null, (released) => this.#released(released));
    this.#controllers.set(jobId, claim);
    return claim;
  }

  /**
   * The person takes the keyboard: automation stands still and the guard stands aside for the tab,
   * before the first keystroke can arrive. False when the claim was let go meanwhile (its client
   * went away): with nobody in control the tab goes back to automation, and nothing is served.
   */
  async handOver(claim: ScreenClaim): Promise<boolean> {
    try {
      await this.#setUserInControl(claim.jobId, true);
    } catch (error) {
      claim.release();
      throw error;
    }
    if (!claim.released) return true;
    if (!this.#controllers.has(claim.jobId)) await this.#setUserInControl(claim.jobId, false).catch(() => {});
    return false;
  }

  /**
   * The claim's connection is open. Unless another screen took over meanwhile (or had taken over
   * from this page before), the screens it claimed the tab from are told and closed: the same page
   * reconnecting takes over from itself (its old connection is ended as RECONNECTED, not
   * TAKEN_OVER); any other screen is remembered as taken over, even one whose connection had dropped.
   */
  open(claim: ScreenClaim, connection: ControlConnection): OpenOutcome {
    if (claim.superseded || this.wasTakenOver(claim.tab, claim.screen)) return 'taken_over';
    if (claim.released) return 'retry';
    for (let previous = claim.previous; previous; previous = previous.previous) {
      if (previous.superseded) continue;
      previous.superseded = true;
      const itself = previous.screen !== null && previous.screen === claim.screen;
      if (!itself && previous.screen !== null) {
        const screens = this.#takenOver.get(claim.tab) ?? new Set<string>();
        screens.add(previous.screen);
        this.#takenOver.set(claim.tab, screens);
      }
      previous.connection?.end(itself ? RECONNECTED : TAKEN_OVER);
    }
    claim.previous = null;
    claim.connection = connection;
    return 'controlling';
  }

  /**
   * A screen let go of the tab. If it was the one in control: a screen it was taking the tab from,
   * still connected, keeps it (a handshake that failed takes nothing); otherwise nobody is in
   * control now, and the guard covers the tab again.
   */
  #released(claim: ScreenClaim): void {
    if (this.#controllers.get(claim.jobId) !== claim) return;
    let back = claim.previous;
    while (back && (back.released || back.superseded)) back = back.previous;
    if (back) {
      this.#controllers.set(claim.jobId, back);
      return;
    }
    this.#controllers.delete(claim.jobId);
    void this.#setUserInControl(claim.jobId, false).catch(() => {});
  }
}
