import { selectorOf } from '../lib.ts';
import type { Reader } from '../page.ts';

/** The page's frames (a payment partner's, a CAPTCHA's): each read apart by frame-facts.ts. */
export const frames: Reader = ({ doc }) => ({
  frames: Array.from(doc.querySelectorAll('iframe,frame')).map((f) => ({ sel: selectorOf(f), src: (f as HTMLIFrameElement).src ?? '', title: f.getAttribute('title') ?? '' })),
});
