import { clean } from '../lib.ts';
import type { Reader } from '../page.ts';

/** Label–value pairs of tables: rows of two cells, a header and its value (or a label cell and a value cell). */
export const tables: Reader = ({ all }) => {
  const pairs: Array<{ label: string; value: string; entries: number }> = [];
  for (const tr of all('tr')) {
    const cells = Array.from(tr.children);
    if (cells.length === 2 && (cells[0]!.tagName === 'TH' || cells[1]!.tagName === 'TD')) pairs.push({ label: clean(cells[0]!.textContent), value: clean((cells[1] as HTMLElement).innerText || cells[1]!.textContent), entries: cells[1]!.querySelectorAll('li').length });
  }
  return { pairs };
};
