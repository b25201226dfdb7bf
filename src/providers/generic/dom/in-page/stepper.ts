import { nameOf, selectorOf } from './lib.ts';

/** The buttons around a field that step its number up and down (a quantity stepper), if any. */
export function stepperOf(el: Element): { up: string; down: string } | null {
  const STEP_UP = /^\s*(\+|＋)\s*$|^(increase|increment|add|more|plus)\b|\b(increase|add one|one more)\b/i;
  const STEP_DOWN = /^\s*(-|−|–|—)\s*$|^(decrease|decrement|remove|fewer|less|minus)\b|\b(decrease|remove one|one less)\b/i;
  let box: Element | null = el.parentElement;
  for (let depth = 0; box && depth < 3; depth++, box = box.parentElement) {
    const buttons = Array.from(box.querySelectorAll('button,[role="button"],input[type="button"]'));
    const up = buttons.find((b) => STEP_UP.test(nameOf(b)));
    const down = buttons.find((b) => STEP_DOWN.test(nameOf(b)));
    if (up && down) return { up: selectorOf(up), down: selectorOf(down) };
  }
  return null;
}
