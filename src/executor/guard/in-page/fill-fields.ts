import { cardChoiceOf } from '../../../driver/card-fields.ts';
import { elementAt } from './element-at.ts';

/**
 * Fills a whole form in one round trip: every target is classified first, and if any is a card-code
 * field nothing is filled. Values go in through the elements' own setters with input and change
 * events, as a person's typing would leave them.
 */
export default function fillFields(fields: Array<[string, string]>): { missing?: string; card?: string; rejected?: string } {
  const targets: Array<[HTMLInputElement, string]> = [];
  for (const [selector, value] of fields) {
    // (Through shadow roots where the selector is the reading's own path: element-at.ts.)
    const el = elementAt(selector);
    if (!el) return { missing: selector };
    const card = cardChoiceOf(el);
    if (card) return { card };
    targets.push([el as HTMLInputElement, value]);
  }
  for (const [el, value] of targets) {
    const proto = el.tagName === 'SELECT' ? HTMLSelectElement.prototype : el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value')!.set!;
    el.focus();
    setter.call(el, value);
    if (el.tagName === 'SELECT' && el.value !== value) return { rejected: value };
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    el.blur();
  }
  return {};
}
