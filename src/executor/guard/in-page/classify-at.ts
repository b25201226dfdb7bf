import { cardChoiceOf, cardFieldOf } from '../../../driver/card-fields.ts';
import { elementAt } from './element-at.ts';

/**
 * classifyField (or, for a tick, classifyChoice) of the field `selector` names, in one question:
 * `found` false when the page cannot name the element itself (the caller asks through Playwright).
 */
export default function classifyAt(ask: { selector: string; tick: boolean }): { found: boolean; field: string | null } {
  const el = elementAt(ask.selector);
  if (!el) return { found: false, field: null };
  return { found: true, field: ask.tick ? cardChoiceOf(el) : cardFieldOf(el) };
}
