import { selectorOf, shown } from '../lib.ts';
import type { Reader } from '../page.ts';

/**
 * The page's frames (a payment partner's, a CAPTCHA's): each read apart by frame-facts.ts. One that
 * is shown over the page (fixed in place, a fifth of the window or more: a consent platform's
 * banner) says so.
 */
export const frames: Reader = ({ all }) => ({
  frames: all('iframe,frame').map((f) => ({ sel: selectorOf(f), src: (f as HTMLIFrameElement).src ?? '', title: f.getAttribute('title') ?? '', shown: shown(f), over: overPage(f) })),
});

function overPage(f: Element): boolean {
  if (!shown(f)) return false;
  const box = f.getBoundingClientRect();
  if (box.width * box.height < 0.2 * innerWidth * innerHeight) return false;
  for (let el: Element | null = f; el; el = el.parentElement) if (getComputedStyle(el).position === 'fixed') return true;
  return false;
}
