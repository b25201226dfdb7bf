import { cardChoiceOf } from '../../../driver/card-fields.ts';
import { fieldsIn } from './fields-in.ts';

/**
 * The first card-code field the document shows, and whether the document is complete: one still
 * being parsed may show its code field further down (a frame asked too early).
 */
export default function firstCardField(): { field: string | null; parsed: boolean } {
  for (const el of fieldsIn(document)) {
    const f = cardChoiceOf(el);
    if (f) return { field: f, parsed: true };
  }
  return { field: null, parsed: document.readyState !== 'loading' };
}
