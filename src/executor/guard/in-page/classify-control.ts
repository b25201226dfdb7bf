import { cardChoiceOf } from '../../../driver/card-fields.ts';

/** A control about to be pressed: its label, the card-code field of its form if any, and whether its form holds a frame. */
export default function classifyControl(el: Element): { label: string; field: string | null; frame: boolean } {
  const h = el as HTMLInputElement;
  const label = ((h.innerText || h.value || el.getAttribute('aria-label') || el.id || el.tagName) + '').trim().replace(/\s+/g, ' ').slice(0, 60);
  const form = h.form || el.closest('form');
  let field: string | null = null;
  let frame = false;
  if (form) {
    for (const f of Array.from(form.elements)) {
      field = cardChoiceOf(f);
      if (field) break;
    }
    if (!field) {
      for (const f of Array.from(form.querySelectorAll('input, textarea, select'))) {
        field = cardChoiceOf(f);
        if (field) break;
      }
    }
    frame = form.querySelector('iframe') !== null;
  }
  return { label, field, frame };
}
