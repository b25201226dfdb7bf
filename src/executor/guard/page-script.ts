import { GUARD_BINDING, GUARD_PULL, UNSEEN_PULL } from './names.ts';

// Scripts added to every frame of every page of a job's browser context (cross-origin iframes
// included: context-level init scripts run in every frame, before the frame's own scripts). They
// talk to the executor through one binding, `GUARD_BINDING`, exposed in every frame:
//   binding('deny', how, field)  a blocked attempt (how: typing, pasting, script, submitting)
//   binding('learn', names)      names of card-code fields present in the page (network layer)
//   binding('mode')              'automation' or 'user': who is in control of this tab now
//   binding('unseen', what, started?)  a worker or connection the page tried to start while automation
//                                is in control (or, with 'started', started while the person is)
//   binding('preload')           speculation rules the page added, removed while automation is in control
// Only field names ever cross the binding, never a value. The scripts are modules in in-page/
// (blocker.ts, learner.ts), bundled by scripts/build-page-scripts.ts into in-page.generated.ts.

export { BLOCKER_SCRIPT, CHANGE_LOG_SCRIPT, LEARNER_SCRIPT, OPEN_IN_TAB_SCRIPT } from './in-page.generated.ts';
export { GUARD_BINDING, GUARD_PULL, UNSEEN_PULL };

/** Every script's "ask again who is in control", called in every frame of a tab when control changes. */
export const GUARD_PULLS = [GUARD_PULL, UNSEEN_PULL] as const;

/** `call(...)`: the binding as the page found it at start (a page cannot swap it later), never throwing. */
export const BINDING_CALL = `
  const binding = window[${JSON.stringify(GUARD_BINDING)}];
  const call = (...args) => { try { return typeof binding === 'function' ? binding(...args) : undefined; } catch (e) { return undefined; } };
`;
