import { cardChoiceOf } from '../../../driver/card-fields.ts';
import { FRAME_ELEMENTS } from '../names.ts';
import { fieldsIn } from './fields-in.ts';
import { untilQuiet } from './until-quiet.ts';
import { keepInTab } from './same-tab.ts';

export interface PressStopped {
  field: string | null;
  frameInForm: boolean;
  newFrame: boolean;
}

/**
 * Armed on a control just before the guard checks the page and presses it: at the click (and at
 * the submission it starts), the control's document is looked at again, in the same moment. A
 * card-code field that has appeared, or a frame the guard did not see when it asked every frame
 * (a payment partner's frame mounted late, a script reacting to the pointer going down), stops the
 * press (the click's default action is prevented) and is reported by `disarm()`. A page's own
 * listener that runs before this one could hide the click from it: a hostile page is layers 2 and
 * 3's to stop; this closes the gap between a well-meaning page's check and its press.
 */
/** After a press that went through: how long the page must stay unchanged to count as settled. */
export interface PressQuiet {
  /** Unchanged this long since the press (or since `sinceMs` ago), when it has not changed since then. */
  quietMs: number;
  /** Unchanged this long since its last change, when it changed after the press (or `sinceMs` ago): it reacted. */
  reactedQuietMs: number;
  /** Settled at this, changing or not. */
  capMs: number;
  /** Counted from this long ago (when the page's requests last came or went) rather than from the press. */
  sinceMs?: number;
  /** The quiet counted from this long ago at the earliest (when the act ended; `sinceMs` when not given). */
  restMs?: number;
}

export interface PressWatch {
  /**
   * Stops watching the click; what stopped it, else (with `quiet`) resolves once the page is quiet
   * after it. `leaving`: the click submitted a form or followed a link to another document and the
   * page let it (nothing prevented it), so a new document is on its way even if its request has not
   * started yet (the browser queues a form's navigation as a task of its own).
   */
  disarm(quiet: PressQuiet | null): Promise<{ stopped: PressStopped | null; quiet: boolean; leaving: boolean }>;
  /** Resolves once the page is quiet (true); the document's changes are still watched until release(). */
  settled(quiet: PressQuiet): Promise<boolean>;
  /** Whether the press has begun (its pointer went down, or its click came): a click that timed out may still have pressed. */
  began(): boolean;
  /** Stops watching altogether. */
  release(): void;
}

export default function armPress(el: Element): PressWatch {
  // What the press opens comes in this tab, the one the watch (and the run) looks at.
  keepInTab(el);
  const doc = el.ownerDocument;
  const win = doc.defaultView!;
  const known = new Set(Array.from(doc.querySelectorAll(FRAME_ELEMENTS)));
  const found: PressStopped = { field: null, frameInForm: false, newFrame: false };
  // When the press began (its pointer going down, else its click) and when the document last changed:
  // a page that changed after the press began has reacted to it, and once it is unchanged a moment it
  // has settled; a page that has not changed yet may still be about to, and is given longer.
  let pressedAt: number | null = null;
  let changedAt = -Infinity;
  const observer = new MutationObserver(() => {
    changedAt = performance.now();
  });
  observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
  const began = () => {
    pressedAt ??= performance.now();
  };
  const check = (e: Event) => {
    began();
    if (!found.field && !found.newFrame) {
      for (const f of fieldsIn(doc)) {
        found.field = cardChoiceOf(f);
        if (found.field) break;
      }
      const form = (el as HTMLInputElement).form || el.closest('form');
      for (const f of Array.from(doc.querySelectorAll(FRAME_ELEMENTS))) {
        if (known.has(f)) continue;
        found.newFrame = true;
        if (form && form.contains(f)) found.frameInForm = true;
      }
      if (!found.field && !found.newFrame) return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
  };
  // Read last (bubbling to the window, after the page's own handlers): whether the press leaves the document.
  let leaving = false;
  const leaves = (e: Event) => {
    if (e.defaultPrevented) return;
    if (e.type === 'submit') {
      const form = e.target as HTMLFormElement;
      const submitter = (e as SubmitEvent).submitter;
      const target = submitter?.getAttribute('formtarget') ?? form.getAttribute('target') ?? '';
      // (A dialog's form closes the dialog; one aimed at a frame loads the frame.)
      const method = (submitter?.getAttribute('formmethod') ?? form.getAttribute('method') ?? '').toLowerCase();
      if (method !== 'dialog' && (!target || /^_(self|top|parent|blank)$/i.test(target))) leaving = true;
      return;
    }
    const link = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
    if (!link || link.hasAttribute('download') || !/^https?:$/.test(link.protocol)) return;
    if (link.target && !/^_(self|top|parent|blank)$/i.test(link.target)) return;
    const here = new URL(doc.URL);
    // (A link to a part of this page, "#" too, moves within it: no new document.)
    if (link.href.includes('#') && link.origin === here.origin && link.pathname === here.pathname && link.search === here.search) return;
    leaving = true;
  };
  win.addEventListener('pointerdown', began, true);
  win.addEventListener('mousedown', began, true);
  win.addEventListener('click', check, true);
  win.addEventListener('submit', check, true);
  win.addEventListener('click', leaves);
  win.addEventListener('submit', leaves);
  const unlisten = () => {
    win.removeEventListener('pointerdown', began, true);
    win.removeEventListener('mousedown', began, true);
    win.removeEventListener('click', check, true);
    win.removeEventListener('submit', check, true);
    win.removeEventListener('click', leaves);
    win.removeEventListener('submit', leaves);
  };
  const settled = (quiet: PressQuiet) => {
    const now = performance.now();
    const start = quiet.sinceMs !== undefined ? now - quiet.sinceMs : (pressedAt ?? now);
    return untilQuiet(() => (changedAt >= start ? changedAt + quiet.reactedQuietMs : start + quiet.quietMs) - performance.now(), () => doc.readyState !== 'loading', quiet.capMs);
  };
  return {
    async disarm(quiet) {
      unlisten();
      const stopped = found.field || found.newFrame ? found : null;
      if (stopped || !quiet) return { stopped, quiet: false, leaving: false };
      // (Leaving: the quiet of a document on its way out says nothing of the next.)
      return { stopped: null, quiet: leaving ? false : await settled(quiet), leaving };
    },
    settled,
    began: () => pressedAt !== null,
    release() {
      unlisten();
      observer.disconnect();
    },
  };
}
