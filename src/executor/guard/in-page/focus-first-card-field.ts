import { cardFieldOf } from '../../../driver/card-fields.ts';
import { fieldsIn } from './fields-in.ts';

/** Focuses the document's first card-code field (for the person, at the handoff): whether it took the focus. */
export default function focusFirstCardField(): boolean {
  for (const el of fieldsIn(document)) {
    if (cardFieldOf(el)) {
      (el as HTMLElement).focus();
      return (el.getRootNode() as Document | ShadowRoot).activeElement === el;
    }
  }
  return false;
}
