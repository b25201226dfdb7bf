import type { Reader } from '../page.ts';
import { clean, selectorOf, shown } from '../lib.ts';

// Overlays: dialogs (native, ARIA) and banners fixed over the page.

/** Dialogs, and banners fixed over the page (a cookie notice is often one, without a dialog role). */
export function overlaysOf(all: (selector: string) => Element[]): Element[] {
  const dialogsEls = all('dialog[open],[role="dialog"],[role="alertdialog"],[aria-modal="true"]').filter(shown);
  const overlayEls: Element[] = [...dialogsEls];
  for (const el of all('body *')) {
    if (overlayEls.length > 10) break;
    if (overlayEls.some((d) => d === el || d.contains(el) || el.contains(d))) continue;
    const pos = getComputedStyle(el).position;
    if ((pos === 'fixed' || pos === 'sticky') && shown(el) && el.querySelector('button,a,[role="button"]') && !el.closest('header,nav')) overlayEls.push(el);
  }
  return overlayEls;
}

/** The overlays, as the snapshot's `dialogs` (fields and controls name theirs by index in it). */
export const dialogs: Reader = ({ overlayEls }) => ({
  dialogs: overlayEls.map((d) => ({
    sel: selectorOf(d),
    text: clean((d as HTMLElement).innerText || d.textContent).slice(0, 500),
    // (An alert dialog interrupts by definition: ARIA asks it to be modal.)
    modal: d.getAttribute('aria-modal') === 'true' || d.getAttribute('role') === 'alertdialog' || (d.tagName === 'DIALOG' && d.matches(':modal')),
    fixed: getComputedStyle(d).position === 'fixed',
  })),
});
