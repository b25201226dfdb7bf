/**
 * Field order shuffled inside each form: the groups that hold one field and its
 * label (an element around both, or a <label for> straight before its control)
 * trade places among themselves. Submit buttons, hidden inputs, radio options
 * and everything else keep their places.
 */
import type { Rng } from './random.ts';
import { attr, childrenOf, elements, isElement, type Element, type Node } from './tree.ts';

const CONTROLS = new Set(['input', 'select', 'textarea']);

function isField(e: Element): boolean {
  if (!CONTROLS.has(e.tagName)) return false;
  const type = (attr(e, 'type') ?? '').toLowerCase();
  return !['hidden', 'submit', 'button', 'image', 'reset', 'radio'].includes(type);
}

function isSubmit(e: Element): boolean {
  const type = (attr(e, 'type') ?? '').toLowerCase();
  return (e.tagName === 'button' && (type === '' || type === 'submit')) || (e.tagName === 'input' && (type === 'submit' || type === 'image'));
}

const within = (e: Element) => [e, ...elements(e)];

/** One field, no submit button, no radio option: a group that may move. */
function isGroup(e: Element): boolean {
  const inside = within(e);
  if (inside.some(isSubmit) || inside.some((x) => x.tagName === 'input' && attr(x, 'type') === 'radio') || inside.some((x) => x.tagName === 'form')) return false;
  return inside.filter(isField).length === 1;
}

export function shuffleFields(doc: Node, rng: Rng): void {
  for (const form of elements(doc).filter((e) => e.tagName === 'form')) {
    for (const parent of [form, ...elements(form)]) shuffleChildren(parent, rng);
  }
}

function shuffleChildren(parent: Element, rng: Rng): void {
  const kids = childrenOf(parent);
  // Units: a movable group (one node or a label–control pair with what trails it up to the next unit), or a fixed node.
  const units: Array<{ nodes: Node[]; movable: boolean }> = [];
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i]!;
    if (isElement(k) && k.tagName === 'label' && attr(k, 'for') && !within(k).some(isField)) {
      const j = kids.findIndex((x, n) => n > i && isElement(x));
      const control = j >= 0 ? (kids[j] as Element) : undefined;
      if (control && attr(control, 'id') === attr(k, 'for') && isGroup(control)) {
        units.push({ nodes: kids.slice(i, j + 1), movable: true });
        i = j;
        continue;
      }
    }
    units.push({ nodes: [k], movable: isElement(k) && isGroup(k) });
  }
  const slots = units.map((u, i) => (u.movable ? i : -1)).filter((i) => i >= 0);
  if (slots.length < 2) return;
  const order = rng.shuffle(slots.map((i) => units[i]!));
  slots.forEach((slot, n) => (units[slot] = order[n]!));
  const next = units.flatMap((u) => u.nodes);
  if (next.length !== kids.length) return;
  (parent as { childNodes: Node[] }).childNodes = next;
}
