import { cardChoiceOf } from '../../../driver/card-fields.ts';
import { bindingCall } from './binding.ts';

// Support for layer 3, an init script of every frame (page-script.ts LEARNER_SCRIPT): tells the
// executor the names of card-code fields this frame shows, so the network layer also recognises
// oddly named ones (a field named `f7` with the placeholder "CVV"). Scans when the DOM is ready,
// on every change, and before any input or focus.

export default function learner(): void {
  if ((window as unknown as Record<string, unknown>).__conciergeGuardLearner) return;
  Object.defineProperty(window, '__conciergeGuardLearner', { value: true });
  const call = bindingCall();
  const seen = new Set<string>();
  const visit = (root: Document | ShadowRoot, fresh: string[]) => {
    for (const el of Array.from(root.querySelectorAll('*'))) {
      if (el.shadowRoot) visit(el.shadowRoot, fresh);
      if (el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA' && el.tagName !== 'SELECT') continue;
      const name = el.getAttribute('name');
      if (name && !seen.has(name.toLowerCase()) && cardChoiceOf(el)) { seen.add(name.toLowerCase()); fresh.push(name); }
    }
  };
  const scan = () => {
    const fresh: string[] = [];
    try { visit(document, fresh); } catch { /* a half-built document: the next change scans again */ }
    if (fresh.length) call('learn', fresh);
  };
  let queued = false;
  const soon = () => { if (!queued) { queued = true; Promise.resolve().then(() => { queued = false; scan(); }); } };
  new MutationObserver(soon).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['name', 'autocomplete', 'placeholder', 'aria-label', 'id', 'type'] });
  document.addEventListener('DOMContentLoaded', scan);
  window.addEventListener('focusin', scan, true);
  window.addEventListener('beforeinput', scan, true);
}
