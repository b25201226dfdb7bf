import { clean, shown } from '../lib.ts';
import type { Reader } from '../page.ts';

/** What the page says: its address, title and language, its text and lines as shown, its headings, and its alerts and live regions. */
export const text: Reader = ({ doc, all }) => {
  const bodyText = clean(doc.body ? doc.body.innerText : '');
  const alerts = all('[role="alert"],[role="status"],[aria-live="assertive"],[aria-live="polite"],output')
    .filter(shown).map((el) => clean((el as HTMLElement).innerText || el.textContent)).filter(Boolean).slice(0, 30);
  const headings = all('h1,h2,h3,[role="heading"]').filter(shown).map((h) => clean(h.textContent)).filter(Boolean).slice(0, 30);
  return {
    url: location.href,
    title: doc.title,
    text: bodyText.slice(0, 20000),
    lang: doc.documentElement.lang || '',
    lines: (doc.body ? doc.body.innerText : '').split('\n').map((l) => clean(l)).filter(Boolean).slice(0, 300),
    headings,
    alerts,
  };
};
