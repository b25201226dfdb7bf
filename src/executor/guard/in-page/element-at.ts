/**
 * The element Playwright's `page.locator(selector).first()` finds, when the page itself can say so
 * in the same question: the selector is plain CSS (Playwright's own selectors, `text=`, `:has-text()`,
 * `>>`, are not), it matches, and no open shadow root could hold an earlier match (Playwright's CSS
 * pierces them; `querySelector` does not). Null otherwise: the caller asks through Playwright, which
 * also waits for a control that is not there yet.
 */
export function elementAt(selector: string): Element | null {
  let el: Element | null;
  try {
    el = document.querySelector(selector);
  } catch (error) {
    if ((error as Error).name === 'SyntaxError') return null;
    throw error;
  }
  if (!el) return null;
  // On every press and fill: the live collection, walked without a copy.
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length; i++) if (all[i]!.shadowRoot) return null;
  return el;
}
