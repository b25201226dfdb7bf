import { clean } from '../lib.ts';
import type { Reader } from '../page.ts';

/** Label–value pairs in plain markup: containers alternating label and value, and "Label: value" lines. */
export const pairs: Reader = ({ doc, all }) => {
  const pairs: Array<{ label: string; value: string; entries: number }> = [];
  // Containers whose children alternate label, value (<span>Room</span><b>Deluxe</b>…).
  for (const box of all('body *').filter((e) => e.children.length >= 4 && e.children.length % 2 === 0).slice(0, 200)) {
    const kids = Array.from(box.children);
    const labels = kids.filter((_, i) => i % 2 === 0);
    const values = kids.filter((_, i) => i % 2 === 1);
    if (labels.some((l) => l.tagName !== labels[0]!.tagName) || values.some((v) => v.tagName !== values[0]!.tagName) || labels[0]!.tagName === values[0]!.tagName) continue;
    if (labels.some((l) => clean(l.textContent).length > 40 || l.children.length > 1)) continue;
    labels.forEach((l, i) => pairs.push({ label: clean(l.textContent), value: clean((values[i] as HTMLElement).innerText || values[i]!.textContent), entries: values[i]!.querySelectorAll('li').length }));
  }
  for (const line of (doc.body ? doc.body.innerText : '').split('\n')) {
    const m = /^\s*([^:\n]{2,40}):\s+(.{1,200})$/.exec(line);
    if (m) pairs.push({ label: clean(m[1]), value: clean(m[2]), entries: 0 });
  }
  return { pairs };
};
