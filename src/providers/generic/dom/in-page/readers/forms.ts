import { clean, regionOf, selectorOf } from '../lib.ts';
import type { Reader } from '../page.ts';

/** The page's forms, in document order (fields and controls name theirs by index in it). */
export const forms: Reader = ({ forms }) => ({
  forms: forms.map((f) => ({
    sel: selectorOf(f),
    text: clean([f.getAttribute('aria-label'), f.getAttribute('name'), f.getAttribute('id'), f.getAttribute('action'), f.querySelector('legend,h1,h2,h3')?.textContent].join(' ')),
    role: f.getAttribute('role') ?? '',
    region: regionOf(f),
  })),
});
