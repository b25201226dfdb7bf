import type { CalendarReading, CalendarDay } from '../calendar.ts';
import { clean, isControl, nameOf, selectorOf, shown } from './lib.ts';

// An entry of the in-page bundle (scripts/build-page-scripts.ts): the month grids a date picker shows
// (dom/calendar.ts walks them). None changes the page.

/** Every month grid shown, read-only. */
export default function readCalendars(): CalendarReading[] {
  const NEXT = /\bnext\b|\bforward\b|siguiente|suivant|weiter|nächste|successivo|prossimo|próximo|seguinte|volgende|^[›»→>]$/i;
  const PREV = /\bprev(ious)?\b|\bback\b|anterior|précédent|zurück|vorherige|precedente|vorige|^[‹«←<]$/i;
  const YEAR = /\byears?\b|\baños?\b|\bjahre?\b|\bannées?\b|\banni\b|\banno\b|\banos?\b|\bjaar\b/i;
  const out: CalendarReading[] = [];
  for (const grid of Array.from(document.querySelectorAll('table,[role="grid"]'))) {
    if (!shown(grid) || grid.parentElement?.closest('table,[role="grid"]')) continue;
    const cells = Array.from(grid.querySelectorAll('td,[role="gridcell"]')).filter((c) => /^\d{1,2}$/.test(clean(c.textContent)));
    if (cells.length < 28 || cells.length > 42) continue;
    const days: CalendarDay[] = [];
    for (const cell of cells) {
      const control = isControl(cell) ? cell : Array.from(cell.querySelectorAll('a,button,[role]')).find(isControl);
      if (!control || !shown(control)) continue;
      const off = (el: Element) => (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true';
      days.push({ n: Number(clean(cell.textContent)), sel: selectorOf(control), disabled: off(control) || off(cell) });
    }
    // The month: the grid's own name or caption, else the words beside it, nearest first.
    let caption = clean(grid.querySelector(':scope > caption')?.textContent) || nameOf(grid);
    let next: Element | undefined;
    let prev: Element | undefined;
    let years: Element | undefined;
    for (let up: Element | null = grid.parentElement, depth = 0; up && depth < 4; up = up.parentElement, depth++) {
      const beside = Array.from(up.children).filter((c) => !c.contains(grid));
      if (!/\b\d{4}\b/.test(caption)) caption = clean(beside.map((c) => (c as HTMLElement).innerText ?? c.textContent).join(' ')).slice(0, 200);
      const pressable = beside.flatMap((c) => [c, ...Array.from(c.querySelectorAll('a,button,[role="button"],[title],[aria-label]'))])
        .filter((el) => el.matches('a,button,[role="button"],[title],[aria-label]') && shown(el));
      const label = (el: Element) => nameOf(el) || el.getAttribute('title') || clean(el.textContent);
      // ("Next year" moves twelve months: not the month's control.)
      next ??= pressable.find((el) => NEXT.test(label(el)) && !YEAR.test(label(el)));
      prev ??= pressable.find((el) => PREV.test(label(el)) && !YEAR.test(label(el)));
      years ??= pressable.find((el) => YEAR.test(label(el)) && !NEXT.test(label(el)) && !PREV.test(label(el)));
      if (next && /\b\d{4}\b/.test(caption)) break;
    }
    out.push({ caption, days, next: next ? selectorOf(next) : null, prev: prev ? selectorOf(prev) : null, years: years ? selectorOf(years) : null });
  }
  return out;
}
