// In-page code shared by the page reading and the payment guard (bundled into both): open shadow
// roots, and the selectors the reading writes for elements inside them, found again in the page.

/**
 * The document and every open shadow root in it, outermost first: where a page's widgets may draw
 * themselves (a web component's calendar, a date picker's popup). Closed roots are the component's own.
 */
export function openRoots(doc: Document): Array<Document | ShadowRoot> {
  const roots: Array<Document | ShadowRoot> = [doc];
  for (let i = 0; i < roots.length; i++) {
    const all = roots[i]!.querySelectorAll('*');
    for (let j = 0; j < all.length; j++) if (all[j]!.shadowRoot) roots.push(all[j]!.shadowRoot!);
  }
  return roots;
}

/** One step of a path the reading writes: an id, or a tag with its place among its kind. */
const STEP = /^(?:(#(?:\\.|[^\s>\\])+)|([a-z][a-z0-9-]*)(?::nth-of-type\((\d+)\))?)$/i;

/**
 * Every element a path of the page reading's own form (an `#id` or `html`, then `>` steps of a tag
 * with an optional `:nth-of-type(n)`) names as Playwright's CSS reads it: a host's children are its
 * own and its open shadow root's top elements, each counted among its own siblings. Null for any other
 * selector (the caller asks Playwright).
 */
export function pathMatches(doc: Document, selector: string): Element[] | null {
  const steps = selector.split(' > ').map((s) => STEP.exec(s));
  const first = steps[0];
  if (!first || steps.slice(1).some((m) => !m || m[1] !== undefined)) return null;
  let at: Element[];
  if (first[1] !== undefined) at = openRoots(doc).flatMap((root) => Array.from(root.querySelectorAll(first[1]!)));
  else if (first[2]!.toLowerCase() === 'html' && !first[3]) at = [doc.documentElement];
  else return null;
  for (const m of steps.slice(1) as RegExpExecArray[]) {
    const tag = m[2]!.toLowerCase();
    const n = m[3] ? Number(m[3]) : 0;
    const next: Element[] = [];
    for (const el of at) {
      for (const list of [el.children, el.shadowRoot?.children]) {
        if (!list) continue;
        const same = Array.from(list).filter((c) => c.tagName.toLowerCase() === tag);
        if (!n) next.push(...same);
        else if (same[n - 1]) next.push(same[n - 1]!);
      }
    }
    at = next;
  }
  return at;
}
