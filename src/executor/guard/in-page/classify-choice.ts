import { cardChoiceOf } from '../../../driver/card-fields.ts';

/** Also a radio button or checkbox whose name or labels read as a card code (a code picked digit by digit). */
export default function classifyChoice(el: Element): string | null {
  return cardChoiceOf(el);
}
