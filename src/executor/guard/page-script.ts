import { IN_PAGE_CLASSIFIER } from '../../driver/card-fields.ts';

// Scripts added to every frame of every page of a job's browser context (cross-origin iframes
// included: context-level init scripts run in every frame, before the frame's own scripts). They
// talk to the executor through one binding, `GUARD_BINDING`, exposed in every frame:
//   binding('deny', how, field)  a blocked attempt (how: typing, pasting, script, submitting)
//   binding('learn', names)      names of card-code fields present in the page (network layer)
//   binding('mode')              'automation' or 'user': who is in control of this tab now
//   binding('unseen', what, started?)  a worker or connection the page tried to start while automation
//                                is in control (or, with 'started', started while the person is)
//   binding('preload')           speculation rules the page added, removed while automation is in control
// Only field names ever cross the binding, never a value.

export const GUARD_BINDING = '__conciergeGuard';
/** Defined in every frame: asks the executor again who is in control (called when control changes). */
export const GUARD_PULL = '__conciergeGuardPull';
/** The same, for the network layer's refusal of what it cannot see (unseen-script.ts; installed without the in-page layer too). */
export const UNSEEN_PULL = '__conciergeGuardUnseenPull';
/** Every script's "ask again who is in control", called in every frame of a tab when control changes. */
export const GUARD_PULLS = [GUARD_PULL, UNSEEN_PULL] as const;

/** `call(...)`: the binding as the page found it at start (a page cannot swap it later), never throwing. */
export const BINDING_CALL = `
  const binding = window[${JSON.stringify(GUARD_BINDING)}];
  const call = (...args) => { try { return typeof binding === 'function' ? binding(...args) : undefined; } catch (e) { return undefined; } };
`;

const prelude = `${BINDING_CALL}
  ${IN_PAGE_CLASSIFIER}
`;

/**
 * Layer 2. While automation is in control, no input reaches a card-code field: typed, pasted or
 * dropped text is cancelled before it lands, a code choice (a radio button or checkbox per digit)
 * is not ticked, a value set by script is refused, anything that slips through is wiped before the
 * page's own listeners see it, and a form carrying a card code is not submitted. When the person takes over (the handoff), the executor switches this tab to `user`
 * and the script stands aside.
 */
export const BLOCKER_SCRIPT = `(() => {
  if (window.__conciergeGuardBlocker) return;
  Object.defineProperty(window, '__conciergeGuardBlocker', { value: true });
  ${prelude}
  let automation = true;
  const pull = () => {
    const answer = call('mode');
    if (answer && typeof answer.then === 'function') return answer.then((mode) => { automation = mode !== 'user'; }, () => {});
    return undefined;
  };
  Object.defineProperty(window, ${JSON.stringify(GUARD_PULL)}, { value: pull, writable: false, configurable: false, enumerable: false });
  pull();

  const inputValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  const areaValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value');
  const selectValue = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value');
  const valueOf = (el) => (el.tagName === 'TEXTAREA' ? areaValue : el.tagName === 'SELECT' ? selectValue : inputValue);
  const getValue = (el) => valueOf(el).get.call(el);
  const setValue = (el, v) => valueOf(el).set.call(el, v);
  const deny = (how, el) => { call('deny', how, cardChoiceOf(el) || 'card field'); };
  const source = (e) => (e.composedPath && e.composedPath()[0]) || e.target;

  const cancel = (how) => (e) => {
    if (!automation) return;
    const el = source(e);
    if (!cardFieldOf(el)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    deny(how, el);
  };
  // Deleting is harmless (the field empties); only insertions are refused.
  window.addEventListener('beforeinput', (e) => { if (!String(e.inputType || '').startsWith('delete')) cancel('typing')(e); }, true);
  window.addEventListener('keypress', cancel('typing'), true);
  window.addEventListener('keydown', (e) => { if (e.key && e.key.length === 1 && !e.ctrlKey && !e.metaKey) cancel('typing')(e); }, true);
  window.addEventListener('paste', cancel('pasting'), true);
  window.addEventListener('drop', cancel('dropping'), true);
  // A code can be picked rather than typed: radio buttons or checkboxes per digit. Ticking one is
  // a click (a label's click, the space bar and a radio group's arrow keys all end in one), which is
  // cancelled; setting checked by script is refused below; a tick that slipped through is undone.
  const checkedDesc = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'checked');
  const isChecked = (el) => checkedDesc.get.call(el);
  const choiceOf = (el) => (el && el.tagName === 'INPUT' && /^(radio|checkbox)$/i.test(el.getAttribute('type') || '') ? cardChoiceOf(el) : null);
  window.addEventListener('click', (e) => {
    if (!automation) return;
    const el = source(e);
    if (!choiceOf(el)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    call('deny', 'ticking', choiceOf(el));
  }, true);
  const wipe = (e) => {
    if (!automation) return;
    const el = source(e);
    if (choiceOf(el)) {
      if (isChecked(el)) { checkedDesc.set.call(el, false); call('deny', 'ticking', choiceOf(el)); }
      e.stopImmediatePropagation();
      return;
    }
    if (!cardFieldOf(el)) return;
    if (getValue(el) !== '') { setValue(el, ''); deny('typing', el); }
    e.stopImmediatePropagation();
  };
  window.addEventListener('input', wipe, true);
  window.addEventListener('change', wipe, true);

  const guardValue = (proto, desc, name) => {
    Object.defineProperty(proto, name, {
      configurable: false,
      enumerable: desc.enumerable,
      get() { return desc.get.call(this); },
      set(v) {
        if (automation && v !== '' && v !== null && v !== undefined && cardFieldOf(this)) { deny('script', this); return; }
        desc.set.call(this, v);
      },
    });
  };
  guardValue(HTMLInputElement.prototype, inputValue, 'value');
  guardValue(HTMLTextAreaElement.prototype, areaValue, 'value');
  guardValue(HTMLSelectElement.prototype, selectValue, 'value');
  guardValue(HTMLInputElement.prototype, Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'defaultValue'), 'defaultValue');
  for (const name of ['checked', 'defaultChecked']) {
    const desc = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, name);
    Object.defineProperty(HTMLInputElement.prototype, name, {
      configurable: false,
      enumerable: desc.enumerable,
      get() { return desc.get.call(this); },
      set(v) {
        if (automation && v && choiceOf(this)) { call('deny', 'script', choiceOf(this)); return; }
        desc.set.call(this, v);
      },
    });
  }
  // An attribute that puts a code in: a value on a code field, \`checked\` on a code choice.
  const fills = (el, name, value) => {
    const attr = String(name).toLowerCase();
    if (attr === 'value') return String(value) !== '' && cardFieldOf(el) ? cardFieldOf(el) : null;
    if (attr === 'checked') return choiceOf(el);
    return null;
  };
  const setAttribute = Element.prototype.setAttribute;
  Object.defineProperty(Element.prototype, 'setAttribute', {
    configurable: false, writable: false,
    value: function (name, value) {
      const field = automation ? fills(this, name, value) : null;
      if (field) { call('deny', 'script', field); return; }
      return setAttribute.call(this, name, value);
    },
  });
  const toggleAttribute = Element.prototype.toggleAttribute;
  Object.defineProperty(Element.prototype, 'toggleAttribute', {
    configurable: false, writable: false,
    value: function (name, force) {
      const field = automation && String(name).toLowerCase() === 'checked' && !this.hasAttribute('checked') && force !== false ? choiceOf(this) : null;
      if (field) { call('deny', 'script', field); return false; }
      return toggleAttribute.apply(this, arguments);
    },
  });

  // A form carries a code when a code field holds text or a code choice is ticked.
  const carrying = (form) => {
    if (!form || !form.elements) return null;
    for (const el of Array.from(form.elements)) {
      if (choiceOf(el) ? isChecked(el) : cardFieldOf(el) && getValue(el) !== '') return el;
    }
    return null;
  };
  for (const method of ['submit', 'requestSubmit']) {
    const original = HTMLFormElement.prototype[method];
    Object.defineProperty(HTMLFormElement.prototype, method, {
      configurable: false, writable: false,
      value: function (...args) {
        const el = automation ? carrying(this) : null;
        if (el) { deny('submitting', el); return; }
        return original.apply(this, args);
      },
    });
  }
  window.addEventListener('submit', (e) => {
    if (!automation) return;
    const el = carrying(e.target);
    if (!el) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    deny('submitting', el);
  }, true);
})();`;

/**
 * Support for layer 3: tells the executor the names of card-code fields this frame shows, so the
 * network layer also recognises oddly named ones (a field named `f7` with the placeholder "CVV").
 * Scans when the DOM is ready, on every change, and before any input or focus.
 */
export const LEARNER_SCRIPT = `(() => {
  if (window.__conciergeGuardLearner) return;
  Object.defineProperty(window, '__conciergeGuardLearner', { value: true });
  ${prelude}
  const seen = new Set();
  const visit = (root, fresh) => {
    for (const el of Array.from(root.querySelectorAll('*'))) {
      if (el.shadowRoot) visit(el.shadowRoot, fresh);
      if (el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA' && el.tagName !== 'SELECT') continue;
      const name = el.getAttribute('name');
      if (name && !seen.has(name.toLowerCase()) && cardChoiceOf(el)) { seen.add(name.toLowerCase()); fresh.push(name); }
    }
  };
  const scan = () => {
    const fresh = [];
    try { visit(document, fresh); } catch (e) { /* a half-built document: the next change scans again */ }
    if (fresh.length) call('learn', fresh);
  };
  let queued = false;
  const soon = () => { if (!queued) { queued = true; Promise.resolve().then(() => { queued = false; scan(); }); } };
  new MutationObserver(soon).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['name', 'autocomplete', 'placeholder', 'aria-label', 'id', 'type'] });
  document.addEventListener('DOMContentLoaded', scan);
  window.addEventListener('focusin', scan, true);
  window.addEventListener('beforeinput', scan, true);
})();`;
