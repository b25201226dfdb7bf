import { cardChoiceOf } from '../../../driver/card-fields.ts';
import { FRAME_ELEMENTS } from '../names.ts';
import { fieldsIn } from './fields-in.ts';

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
export default function armPress(el: Element): { disarm(): PressStopped | null } {
  const doc = el.ownerDocument;
  const win = doc.defaultView!;
  const known = new Set(Array.from(doc.querySelectorAll(FRAME_ELEMENTS)));
  const found: PressStopped = { field: null, frameInForm: false, newFrame: false };
  const check = (e: Event) => {
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
  win.addEventListener('click', check, true);
  win.addEventListener('submit', check, true);
  return {
    disarm() {
      win.removeEventListener('click', check, true);
      win.removeEventListener('submit', check, true);
      return found.field || found.newFrame ? found : null;
    },
  };
}
