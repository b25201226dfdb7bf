import armPress, { type PressWatch } from './arm-press.ts';
import classifyControl from './classify-control.ts';
import { elementAt } from './element-at.ts';

export type ArmedControl = PressWatch & { control: ReturnType<typeof classifyControl> };

/**
 * armPress and classifyControl in one question, on the control `selector` names (elementAt): armed
 * first, classified in the same moment. Null when the page cannot name the element itself (the
 * caller arms it through Playwright).
 */
export default function armControl(selector: string): ArmedControl | null {
  const el = elementAt(selector);
  if (!el) return null;
  const watch = armPress(el);
  return Object.assign(watch, { control: classifyControl(el) });
}
