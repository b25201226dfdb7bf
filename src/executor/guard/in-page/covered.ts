import { elementAt } from './element-at.ts';

/**
 * Whether something else is over this control now (a consent box, a modal's backdrop), as the
 * pointer would find it, without acting: the topmost element at the control's centre is neither the
 * control, nor inside it, nor one of its labels. A control outside the viewport is over nothing a
 * press would not scroll past, unless the viewport itself is covered by a fixed layer that does not
 * hold the control (a full-page consent wall). Null when it cannot say (no element the page can name
 * (elementAt), no box): the caller asks the browser the slow way.
 */
export default function covered(selector: string): boolean | null {
  const el = elementAt(selector);
  if (!el) return null;
  const box = el.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return null;
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const inView = x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
  const hit = inView ? document.elementFromPoint(x, y) : document.elementFromPoint(innerWidth / 2, innerHeight / 2);
  if (!hit) return inView ? null : false;
  if (el.contains(hit)) return false;
  const labels = (el as HTMLInputElement).labels;
  if (labels && Array.from(labels).some((l) => l.contains(hit))) return false;
  if (inView) return true;
  // Off screen: covered only by a fixed layer over the viewport that does not hold the control.
  for (let up: Element | null = hit; up; up = up.parentElement) {
    if (getComputedStyle(up).position === 'fixed') return !up.contains(el);
  }
  return false;
}
