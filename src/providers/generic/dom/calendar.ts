import { setTimeout as sleep } from 'node:timers/promises';
import type { DriverPage } from '../../../driver/page.ts';
import { NotUnderstood } from './not-understood.ts';
import { snapshot } from './snapshot.ts';
import { READ_CALENDARS } from './in-page.generated.ts';
import { monthYearIn } from '../../../driver/text.ts';

// A month grid whose days are named only by their number (jQuery UI's datepicker, MUI's calendar: "10"),
// read as a person reads it: the grid (a table, or the APG's role=grid), the month it shows (the grid's
// name, its caption, or the words just around it: "June 2030"), the controls beside it that show the
// next and the previous month (by name, title or text, "Next", "Go to the Next Month", "›"), and each
// day's number and the control that chooses it. Walked month by month to the month asked, then the
// day pressed (by its dated name when it has one). Its own reading in the page, apart from the
// snapshot's (in-page/read-calendars.ts): asked only when a date picker is open and no day in it is named by its date.

export interface CalendarDay {
  n: number;
  sel: string;
  disabled: boolean;
}

export interface CalendarReading {
  caption: string;
  days: CalendarDay[];
  next: string | null;
  prev: string | null;
  /** A control beside it that shows the years to choose from ("switch to year view"). */
  years: string | null;
}

/** Of the cells numbered `n`, the one of the month shown (a grid that shows other months' days greyed puts them first or last). */
function dayCell(days: CalendarDay[], n: number): CalendarDay | undefined {
  const same = days.filter((d) => d.n === n);
  return n > 15 ? same.at(-1) : same[0];
}

/**
 * Walks an open calendar to the month of `iso` by its next or previous month control, and returns
 * the selector of the day to press (`named`, when a control named by the date is shown there, is
 * asked for first); null when no calendar with a month is shown or it does not move.
 */
export async function walkCalendar(page: DriverPage, iso: string, lang: string, named: () => Promise<string | null>, stepName = 'search'): Promise<string | null> {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const want = y * 12 + (m - 1);
  let last: number | null = null;
  let jumped = false;
  // How many months one press of the month control moves the calendar (most move one, a calendar
  // that shows two months may move two), once a single press has shown it; and the presses since
  // the calendar was last read.
  let step: number | null = null;
  let pressed = 0;
  // Ten years either way at most: a booking's date is nearer than that.
  for (let moves = 0; moves <= 120; moves++) {
    let shownMonths: Array<{ c: CalendarReading; at: number }> = [];
    // A calendar may slide from one month to the next (both grids shown for a moment, or neither):
    // read again until it shows a month it did not show before.
    for (let tries = 0; tries < 40; tries++) {
      shownMonths = (await page.inspect(READ_CALENDARS, undefined))
        .map((c) => ({ c, at: monthYearIn(c.caption, lang) }))
        .filter((x): x is { c: CalendarReading; at: number } => x.at !== null);
      if (last === null || shownMonths.some((x) => x.at !== last)) break;
      await sleep(25);
    }
    if (shownMonths.length === 0) return null;
    const here = shownMonths.find((x) => x.at === want);
    if (here) {
      const byName = await named();
      if (byName) return byName;
      const day = dayCell(here.c.days, d);
      if (!day || day.disabled) throw new NotUnderstood(stepName, page.url(), `the day ${d} to choose in the calendar showing "${here.c.caption}"`, day ? 'it cannot be chosen' : 'no such day to press');
      return day.sel;
    }
    const forward = shownMonths.every((x) => x.at < want);
    // Where the calendar is: its latest month going forward, its earliest going back.
    const at = forward ? Math.max(...shownMonths.map((x) => x.at)) : Math.min(...shownMonths.map((x) => x.at));
    if (last !== null && (forward ? at <= last : at >= last)) return null;
    if (last !== null && pressed === 1) step = Math.abs(at - last);
    last = at;
    pressed = 0;
    // More than a year away, with a view of the years: the year chosen there first (the calendar
    // comes back on a month of that year), then walked.
    const years = shownMonths.map((x) => x.c.years).find(Boolean);
    if (years && !jumped && Math.abs(want - at) > 12) {
      jumped = true;
      await page.press(years, 'show the years');
      const year = (await snapshot(page)).controls.find((c) => c.visible && !c.disabled && c.text.trim() === String(y));
      if (year) {
        await page.press(year.sel, `choose the year ${y}`);
        last = null;
        continue;
      }
    }
    const nav = shownMonths.map((x) => (forward ? x.c.next : x.c.prev)).find(Boolean);
    if (!nav) return null;
    // Once a press has shown how far it moves, the rest of the way is pressed in one go, as a person
    // clicks through the months without reading each (a calendar that slides from one month to the
    // next is read once, at the end, not after every slide), then read again to check.
    const presses = step ? Math.max(1, Math.floor(Math.abs(want - at) / step)) : 1;
    await page.pressRepeatedly(nav, presses, forward ? 'show the next month' : 'show the previous month');
    pressed = presses;
  }
  return null;
}
