import { pathMatches } from '../../../driver/shadow-path.ts';

/**
 * The element Playwright's `page.locator(selector).first()` finds, when the page itself can say so
 * in the same question: the selector is plain CSS (Playwright's own selectors, `text=`, `:has-text()`,
 * `>>`, are not), it matches, and no open shadow root could hold an earlier match (Playwright's CSS
 * pierces them; `querySelector` does not). Where the page has shadow roots, a path the page reading
 * wrote (an id, then tags by place: driver/shadow-path.ts) is followed through them, and names its
 * element when it names one alone. Null otherwise: the caller asks through Playwright, which also
 * waits for a control that is not there yet.
 */
export function elementAt(selector: string): Element | null {
  let el: Element | null;
  try {
    el = document.querySelector(selector);
  } catch (error) {
    if ((error as Error).name === 'SyntaxError') return null;
    throw error;
  }
  // On every press and fill: the live collection, walked without a copy.
  const all = document.getElementsByTagName('*');
  let deep = false;
  for (let i = 0; i < all.length && !deep; i++) if (all[i]!.shadowRoot) deep = true;
  if (!deep) return el;
  const matches = pathMatches(document, selector);
  return matches?.length === 1 ? matches[0]! : null;
}
