// The names the guard's in-page scripts and the executor share (no imports: in-page code bundles it).

export const GUARD_BINDING = '__conciergeGuard';
/** Defined in every frame: asks the executor again who is in control (called when control changes). */
export const GUARD_PULL = '__conciergeGuardPull';
/** The same, for the network layer's refusal of what it cannot see (unseen-script.ts; installed without the in-page layer too). */
export const UNSEEN_PULL = '__conciergeGuardUnseenPull';
/** Elements that hold a document of their own. */
export const FRAME_ELEMENTS = 'iframe, frame, object, embed';
/** Defined in every frame by the change log (in-page/change-log.ts): when its document last changed. */
export const CHANGE_LOG = '__conciergeChangedAt';
/** Defined in the top frame by in-page/open-in-tab.ts once window.open keeps what it opens in the tab. */
export const OPEN_IN_TAB = '__conciergeOpenInTab';
