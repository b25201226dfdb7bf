import { cardChoiceOf, cardFieldOf } from '../../../driver/card-fields.ts';
import { GUARD_PULL } from '../names.ts';
import { bindingCall } from './binding.ts';

// Layer 2, an init script of every frame (page-script.ts BLOCKER_SCRIPT). While automation is in
// control, no input reaches a card-code field: typed, pasted or dropped text is cancelled before it
// lands, a code choice (a radio button or checkbox per digit) is not ticked, a value set by script
// is refused, anything that slips through is wiped before the page's own listeners see it, and a
// form carrying a card code is not submitted. When the person takes over (the handoff), the
// executor switches this tab to `user` and the script stands aside.

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

export default function blocker(): void {
  if ((window as unknown as Record<string, unknown>).__conciergeGuardBlocker) return;
  Object.defineProperty(window, '__conciergeGuardBlocker', { value: true });
  const call = bindingCall();
  let automation = true;
  const pull = () => {
    const answer = call('mode') as Promise<unknown> | undefined;
    if (answer && typeof answer.then === 'function') return answer.then((mode) => { automation = mode !== 'user'; }, () => {});
    return undefined;
  };
  Object.defineProperty(window, GUARD_PULL, { value: pull, writable: false, configurable: false, enumerable: false });
  pull();

  const inputValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!;
  const areaValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!;
  const selectValue = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!;
  const valueOf = (el: Element) => (el.tagName === 'TEXTAREA' ? areaValue : el.tagName === 'SELECT' ? selectValue : inputValue);
  const getValue = (el: Element) => valueOf(el).get!.call(el) as string;
  const setValue = (el: Element, v: string) => valueOf(el).set!.call(el, v);
  const deny = (how: string, el: Element) => { call('deny', how, cardChoiceOf(el) || 'card field'); };
  const source = (e: Event) => ((e.composedPath && e.composedPath()[0]) || e.target) as Element;

  const cancel = (how: string) => (e: Event) => {
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
  const checkedDesc = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'checked')!;
  const isChecked = (el: Element) => checkedDesc.get!.call(el) as boolean;
  const choiceOf = (el: Element | null) => (el && el.tagName === 'INPUT' && /^(radio|checkbox)$/i.test(el.getAttribute('type') || '') ? cardChoiceOf(el) : null);
  window.addEventListener('click', (e) => {
    if (!automation) return;
    const el = source(e);
    if (!choiceOf(el)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    call('deny', 'ticking', choiceOf(el));
  }, true);
  const wipe = (e: Event) => {
    if (!automation) return;
    const el = source(e);
    if (choiceOf(el)) {
      if (isChecked(el)) { checkedDesc.set!.call(el, false); call('deny', 'ticking', choiceOf(el)); }
      e.stopImmediatePropagation();
      return;
    }
    if (!cardFieldOf(el)) return;
    if (getValue(el) !== '') { setValue(el, ''); deny('typing', el); }
    e.stopImmediatePropagation();
  };
  window.addEventListener('input', wipe, true);
  window.addEventListener('change', wipe, true);

  const guardValue = (proto: object, desc: PropertyDescriptor, name: string) => {
    Object.defineProperty(proto, name, {
      configurable: false,
      enumerable: desc.enumerable,
      get(this: Field) { return desc.get!.call(this); },
      set(this: Field, v: unknown) {
        if (automation && v !== '' && v !== null && v !== undefined && cardFieldOf(this)) { deny('script', this); return; }
        desc.set!.call(this, v);
      },
    });
  };
  guardValue(HTMLInputElement.prototype, inputValue, 'value');
  guardValue(HTMLTextAreaElement.prototype, areaValue, 'value');
  guardValue(HTMLSelectElement.prototype, selectValue, 'value');
  guardValue(HTMLInputElement.prototype, Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'defaultValue')!, 'defaultValue');
  for (const name of ['checked', 'defaultChecked']) {
    const desc = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, name)!;
    Object.defineProperty(HTMLInputElement.prototype, name, {
      configurable: false,
      enumerable: desc.enumerable,
      get(this: HTMLInputElement) { return desc.get!.call(this); },
      set(this: HTMLInputElement, v: unknown) {
        if (automation && v && choiceOf(this)) { call('deny', 'script', choiceOf(this)); return; }
        desc.set!.call(this, v);
      },
    });
  }
  // An attribute that puts a code in: a value on a code field, `checked` on a code choice.
  const fills = (el: Element, name: unknown, value: unknown) => {
    const attr = String(name).toLowerCase();
    if (attr === 'value') return String(value) !== '' && cardFieldOf(el) ? cardFieldOf(el) : null;
    if (attr === 'checked') return choiceOf(el);
    return null;
  };
  const setAttribute = Element.prototype.setAttribute;
  Object.defineProperty(Element.prototype, 'setAttribute', {
    configurable: false, writable: false,
    value: function (this: Element, name: string, value: string) {
      const field = automation ? fills(this, name, value) : null;
      if (field) { call('deny', 'script', field); return; }
      return setAttribute.call(this, name, value);
    },
  });
  const toggleAttribute = Element.prototype.toggleAttribute;
  Object.defineProperty(Element.prototype, 'toggleAttribute', {
    configurable: false, writable: false,
    value: function (this: Element, name: string, force?: boolean) {
      const field = automation && String(name).toLowerCase() === 'checked' && !this.hasAttribute('checked') && force !== false ? choiceOf(this) : null;
      if (field) { call('deny', 'script', field); return false; }
      // eslint-disable-next-line prefer-rest-params
      return toggleAttribute.apply(this, arguments as unknown as [string, boolean?]);
    },
  });

  // A form carries a code when a code field holds text or a code choice is ticked.
  const carrying = (form: HTMLFormElement | null) => {
    if (!form || !form.elements) return null;
    for (const el of Array.from(form.elements)) {
      if (choiceOf(el) ? isChecked(el) : cardFieldOf(el) && getValue(el) !== '') return el;
    }
    return null;
  };
  for (const method of ['submit', 'requestSubmit'] as const) {
    const original = HTMLFormElement.prototype[method] as (...args: unknown[]) => void;
    Object.defineProperty(HTMLFormElement.prototype, method, {
      configurable: false, writable: false,
      value: function (this: HTMLFormElement, ...args: unknown[]) {
        const el = automation ? carrying(this) : null;
        if (el) { deny('submitting', el); return; }
        return original.apply(this, args);
      },
    });
  }
  window.addEventListener('submit', (e) => {
    if (!automation) return;
    const el = carrying(e.target as HTMLFormElement);
    if (!el) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    deny('submitting', el);
  }, true);
}
