import type { CalendarReading, CalendarDay } from '../calendar.ts';
import { openRoots } from '../../../../driver/shadow-path.ts';
import { allIn, clean, drawn, isControl, nameOf, parentOf, selectorOf, shown } from './lib.ts';

// An entry of the in-page bundle (scripts/build-page-scripts.ts): the month grids a date picker shows
// (dom/calendar.ts walks them). None changes the page.

/** Every month grid shown, read-only. */
export default function readCalendars(): CalendarReading[] {
  const NEXT = /\bnext\b|\bforward\b|siguiente|suivant|weiter|nächste|successivo|prossimo|próximo|seguinte|volgende|^[›»→>]$/i;
  const PREV = /\bprev(ious)?\b|\bback\b|anterior|précédent|zurück|vorherige|precedente|vorige|^[‹«←<]$/i;
  const YEAR = /\byears?\b|\baños?\b|\bjahre?\b|\bannées?\b|\banni\b|\banno\b|\banos?\b|\bjaar\b/i;
  const out: CalendarReading[] = [];
  // (A picker may draw its calendar in a shadow root of its own: easepick's.)
  const roots = openRoots(document);
  const all = (selector: string) => allIn(roots, selector);
  const tables = all('table,[role="grid"]')
    .filter((grid) => drawn(grid) && !grid.parentElement?.closest('table,[role="grid"]'))
    .map((grid) => ({ grid, cells: Array.from(grid.querySelectorAll('td,[role="gridcell"]')).filter((c) => /^\d{1,2}$/.test(clean(c.textContent))), run: false }));
  for (const { grid, cells, run } of [...tables, ...dayRuns(all, tables.map((t) => t.grid))]) {
    if (cells.length < 28 || cells.length > 42) continue;
    const days: CalendarDay[] = [];
    const controlIn = (cell: Element) => (isControl(cell) || cell.hasAttribute('tabindex') ? cell : Array.from(cell.querySelectorAll('a,button,[role]')).find(isControl));
    // In a run of numbered days, or a table none of whose days holds a control (Ant Design's), a day
    // is itself what a person clicks; where some hold one, a day without is one that cannot be chosen.
    const bare = run || cells.every((cell) => !controlIn(cell));
    for (const cell of cells) {
      const control = controlIn(cell) ?? (bare ? cell : undefined);
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
    for (let up: Element | null = parentOf(grid), depth = 0; up && depth < 4; up = parentOf(up), depth++) {
      const beside = Array.from(up.children).filter((c) => !c.contains(grid));
      if (!/\b\d{4}\b/.test(caption)) caption = clean(beside.map(wordsApart).join(' ')).slice(0, 200);
      const pressable = beside.flatMap((c) => [c, ...Array.from(c.querySelectorAll('a,button,[role="button"],[title],[aria-label]'))])
        .filter((el) => el.matches('a,button,[role="button"],[title],[aria-label]') && shown(el));
      const label = (el: Element) => nameOf(el) || el.getAttribute('title') || clean(el.textContent);
      // ("Next year" moves twelve months: not the month's control.)
      next ??= pressable.find((el) => NEXT.test(label(el)) && !YEAR.test(label(el)));
      prev ??= pressable.find((el) => PREV.test(label(el)) && !YEAR.test(label(el)));
      years ??= pressable.find((el) => YEAR.test(label(el)) && !NEXT.test(label(el)) && !PREV.test(label(el)));
      // Arrows with no name at all (an SVG in a bare <button>), as a person reads them: of two, the
      // right one shows the next month and the left one the previous (both may sit at one end, as
      // easepick's); one alone, by its side of the month.
      if (!next && !prev && /\b\d{4}\b/.test(caption)) {
        const arrows = pressable.filter((el) => el.matches('a,button,[role="button"]') && !label(el) && el.querySelector('svg,img')).sort((a, b) => centreX(a) - centreX(b));
        if (arrows.length >= 2) [prev, next] = [arrows[0], arrows.at(-1)];
        else if (arrows[0] && centreX(arrows[0]) > centreX(grid)) next = arrows[0];
        else if (arrows[0]) prev = arrows[0];
      }
      if (next && /\b\d{4}\b/.test(caption)) break;
    }
    out.push({ caption, days, next: next ? selectorOf(next) : null, prev: prev ? selectorOf(prev) : null, years: years ? selectorOf(years) : null });
  }
  return out;
}

/**
 * Month grids that are neither a table nor role=grid: an element whose children are the days, 1 to
 * the month's last in order (after any blank cells the first week starts with): Litepicker's and
 * easepick's <div>s, which may be neither focusable nor named, only clicked.
 */
function dayRuns(all: (selector: string) => Element[], tables: Element[]): Array<{ grid: Element; cells: Element[]; run: true }> {
  const runs: Array<{ grid: Element; cells: Element[]; run: true }> = [];
  for (const grid of all('*')) {
    if (grid.childElementCount < 28 || tables.some((t) => t.contains(grid)) || !drawn(grid)) continue;
    const cells = Array.from(grid.children).filter((c) => /^\d{1,2}$/.test(clean(c.textContent)));
    if (cells.length >= 28 && cells.every((c, i) => Number(clean(c.textContent)) === i + 1)) runs.push({ grid, cells, run: true });
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
