import { clean } from '../lib.ts';
import type { Reader } from '../page.ts';

/** Label–value pairs of definition lists (<dt>Room</dt><dd>Deluxe</dd>); `entries`: list items in the value (a list of travellers). */
export const definitions: Reader = ({ all }) => {
  const pairs: Array<{ label: string; value: string; entries: number }> = [];
  for (const dt of all('dt')) {
    const dd = dt.nextElementSibling;
    if (dd?.tagName === 'DD') pairs.push({ label: clean(dt.textContent), value: clean((dd as HTMLElement).innerText || dd.textContent), entries: dd.querySelectorAll('li').length });
  }
  return { pairs };
};
