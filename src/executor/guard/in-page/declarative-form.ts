import { cardChoiceOf } from '../../../driver/card-fields.ts';
import { FRAME_ELEMENTS } from '../names.ts';

/**
 * Asked in the page about a declarative tool (`<form toolname>`): whether its form holds a card-code
 * field or a frame (a payment partner's), which the schema Chromium derives from the form may not
 * show (it names inputs, not their labels), and whether the call submits the form at once.
 */
export default function declarativeForm(name: string): { field: string | null; frame: boolean; autosubmit: boolean; submitLabel: string } | null {
  const form = Array.from(document.querySelectorAll('form[toolname]')).find((f) => f.getAttribute('toolname') === name);
  if (!form) return null;
  let field: string | null = null;
  for (const el of Array.from(form.querySelectorAll('input, textarea, select'))) {
    field = cardChoiceOf(el);
    if (field) break;
  }
  const submitter = form.querySelector('button:not([type]), button[type=submit], input[type=submit]') as HTMLInputElement | null;
  const label = submitter ? ((submitter.innerText || submitter.value || '') + '').trim().replace(/\s+/g, ' ').slice(0, 60) : '';
  return { field, frame: form.querySelector(FRAME_ELEMENTS) !== null, autosubmit: form.hasAttribute('toolautosubmit'), submitLabel: label };
}
