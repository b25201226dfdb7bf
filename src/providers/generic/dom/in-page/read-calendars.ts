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
  const tables = Array.from(document.querySelectorAll('table,[role="grid"]'))
    .filter((grid) => shown(grid) && !grid.parentElement?.closest('table,[role="grid"]'))
    .map((grid) => ({ grid, cells: Array.from(grid.querySelectorAll('td,[role="gridcell"]')).filter((c) => /^\d{1,2}$/.test(clean(c.textContent))) }));
  for (const { grid, cells } of [...tables, ...dayRuns(tables.map((t) => t.grid))]) {
    if (cells.length < 28 || cells.length > 42) continue;
    const days: CalendarDay[] = [];
    for (const cell of cells) {
      const control = isControl(cell) || cell.hasAttribute('tabindex') ? cell : Array.from(cell.querySelectorAll('a,button,[role]')).find(isControl);
      if (!control || !shown(control)) continue;
      const off = (el: Element) => (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true';
      days.push({ n: Number(clean(cell.textContent)), sel: selectorOf(control), disabled: off(control) || off(cell) });
    }
    // The month: the grid's own name or caption, else the words beside it, nearest first (each
    // element's words apart: "<strong>June</strong><span>2030</span>" reads "June 2030", as shown).
    let caption = clean(grid.querySelector(':scope > caption')?.textContent) || nameOf(grid);
    let next: Element | undefined;
    let prev: Element | undefined;
    let years: Element | undefined;
    for (let up: Element | null = grid.parentElement, depth = 0; up && depth < 4; up = up.parentElement, depth++) {
      const beside = Array.from(up.children).filter((c) => !c.contains(grid));
      if (!/\b\d{4}\b/.test(caption)) caption = clean(beside.map(wordsApart).join(' ')).slice(0, 200);
      const pressable = beside.flatMap((c) => [c, ...Array.from(c.querySelectorAll('a,button,[role="button"],[title],[aria-label]'))])
        .filter((el) => el.matches('a,button,[role="button"],[title],[aria-label]') && shown(el));
      const label = (el: Element) => nameOf(el) || el.getAttribute('title') || clean(el.textContent);
      // ("Next year" moves twelve months: not the month's control.)
      next ??= pressable.find((el) => NEXT.test(label(el)) && !YEAR.test(label(el)));
      prev ??= pressable.find((el) => PREV.test(label(el)) && !YEAR.test(label(el)));
      years ??= pressable.find((el) => YEAR.test(label(el)) && !NEXT.test(label(el)) && !PREV.test(label(el)));
      // Arrows with no name at all (an SVG in a bare <button>): the one to the right of the month
      // shows the next, the one to its left the previous, as a person reads them.
      if (!next && !prev && /\b\d{4}\b/.test(caption)) {
        const middle = centreX(grid);
        const arrows = pressable.filter((el) => el.matches('a,button,[role="button"]') && !label(el) && el.querySelector('svg,img'));
        next = arrows.find((el) => centreX(el) > middle);
        prev = arrows.find((el) => centreX(el) < middle);
      }
      if (next && /\b\d{4}\b/.test(caption)) break;
    }
    out.push({ caption, days, next: next ? selectorOf(next) : null, prev: prev ? selectorOf(prev) : null, years: years ? selectorOf(years) : null });
  }
  return out;
}

/**
 * Month grids that are neither a table nor role=grid: an element whose children are the days, 1
 * to the month's last in order, each focusable or a control (Litepicker's, easepick's <div>s).
 */
function dayRuns(tables: Element[]): Array<{ grid: Element; cells: Element[] }> {
  const parents = new Set<Element>();
  for (const el of Array.from(document.querySelectorAll('[tabindex],button,[role="button"]'))) {
    if (el.parentElement && /^\d{1,2}$/.test(clean(el.textContent))) parents.add(el.parentElement);
  }
  const runs: Array<{ grid: Element; cells: Element[] }> = [];
  for (const grid of parents) {
    if (!shown(grid) || tables.some((t) => t.contains(grid))) continue;
    const cells = Array.from(grid.children).filter((c) => /^\d{1,2}$/.test(clean(c.textContent)));
    if (cells.length >= 28 && cells.every((c, i) => Number(clean(c.textContent)) === i + 1)) runs.push({ grid, cells });
  }
  return runs;
}

/** An element's words with each element's text apart from its neighbours'. */
function wordsApart(el: Element): string {
  const words: string[] = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let length = 0;
  // (The words nearest the grid are all a caption needs: a large neighbour is not read to its end.)
  for (let node = walker.nextNode(); node && length < 400; node = walker.nextNode()) {
    const text = (node.textContent ?? '').trim();
    if (!text || !node.parentElement || !shown(node.parentElement)) continue;
    words.push(text);
    length += text.length + 1;
  }
  return words.join(' ');
}

function centreX(el: Element): number {
  const box = el.getBoundingClientRect();
  return box.left + box.width / 2;
}
