import { cardFieldOf } from '../../../driver/card-fields.ts';

/** A card-code field's short name, or null. */
export default function classifyField(el: Element): string | null {
  return cardFieldOf(el);
}
