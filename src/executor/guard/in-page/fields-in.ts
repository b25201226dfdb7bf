/** Every input, textarea and select under root, inside open shadow roots too (a web component's field is still on the page). */
export function fieldsIn(root: Document | ShadowRoot): Element[] {
  const out: Element[] = [];
  for (const el of Array.from(root.querySelectorAll('*'))) {
    if (el.shadowRoot) out.push(...fieldsIn(el.shadowRoot));
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') out.push(el);
  }
  return out;
}
