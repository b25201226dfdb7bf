// What counts as a card security code field, decided in one place for all three guard layers.
// The classifier runs in Node (the payment guard's tool rule) and inside pages: the in-page modules
// (src/executor/guard/in-page/, src/providers/generic/dom/in-page/) import it, and esbuild bundles it
// with them (scripts/build-page-scripts.ts). So it uses only the DOM, and nothing of Node.

/**
 * Does this text (a field name or id, a label, a placeholder, an aria-label, a legend) denote a card
 * security code? Identifiers are split into words first: `securityCode`, `card_cvc`, `payment[cvc]`.
 * Over-matching is the safe side: a field wrongly taken for a card code is only never filled.
 */
export function looksLikeCardCode(text: string | null | undefined): boolean {
  if (!text) return false;
  const words = String(text)
    .slice(0, 300)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  if (words === '') return false;
  if (/(^| )(cvc|cvv|cvn|cvd|csc|cid|cav|cvc2|cvv2|cav2|cid2)( |$)/.test(words)) return true;
  if (/(^| )cc ?(csc|cvc|cvv)( |$)/.test(words)) return true;
  const squashed = words.replace(/ /g, '');
  if (/cvc|cvv|securitycode|cardcode|cardverification|cardsecurity|verificationvalue|verificationnumber|verificationcode|cardidentification/.test(squashed)) return true;
  if (/code (on|from) the back|back of (your|the) card|digits? on the (back|front)|(printed|shown|written) on the back|signature (strip|panel|box)/.test(words)) return true;
  return false;
}

/**
 * If `el` is a card-code input (or textarea, or select), a short name for it (its name attribute, else its id, else its
 * aria-label or placeholder); otherwise null. Looks at the standard autocomplete token (cc-csc) and at
 * everything a person would read: name, id, placeholder, aria-label, title, its labels, the elements
 * it is labelled by, and the legend of its fieldset (codes split over several one-digit boxes).
 */
export function cardFieldOf(el: Element | null | undefined): string | null {
  if (!el || el.nodeType !== 1) return null;
  const tag = el.tagName;
  // A list of digits (or of codes) is a card-code field as much as a text box is.
  if (tag !== 'INPUT' && tag !== 'TEXTAREA' && tag !== 'SELECT') return null;
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  if (['checkbox', 'radio', 'submit', 'button', 'image', 'file', 'reset', 'range', 'color', 'date', 'datetime-local', 'month', 'week', 'time'].includes(type)) return null;
  const attr = (name: string) => el.getAttribute(name) || '';
  const short = (attr('name') || attr('id') || attr('aria-label') || attr('placeholder') || 'unnamed field').slice(0, 60);
  if (/(^|\s)cc-csc(\s|$)/i.test(attr('autocomplete'))) return short;
  const texts = [attr('name'), attr('id'), attr('placeholder'), attr('aria-label'), attr('title'), attr('data-label')];
  const labels = (el as HTMLInputElement).labels;
  if (labels) for (const label of Array.from(labels)) texts.push(label.textContent || '');
  for (const id of attr('aria-labelledby').split(/\s+/).filter(Boolean)) texts.push(el.ownerDocument.getElementById(id)?.textContent || '');
  const fieldset = el.closest('fieldset');
  const legend = fieldset ? fieldset.querySelector(':scope > legend') : null;
  if (legend) texts.push(legend.textContent || '');
  // A field with no label of any kind is described by the text around it.
  if (!(labels && labels.length) && !attr('aria-label') && !attr('aria-labelledby') && el.parentElement) {
    texts.push((el.parentElement.textContent || '').slice(0, 300));
  }
  for (const text of texts) if (looksLikeCardCode(text)) return short;
  return null;
}

/**
 * A card-code field, or a radio button or checkbox whose name or labels read as a card code (a code
 * picked digit by digit): what no layer lets automation put a value into, tick or choose.
 */
export function cardChoiceOf(el: Element | null | undefined): string | null {
  const card = cardFieldOf(el);
  if (card || !el) return card;
  const type = (el.getAttribute('type') || '').toLowerCase();
  if (el.tagName !== 'INPUT' || (type !== 'radio' && type !== 'checkbox')) return null;
  const attr = (name: string) => el.getAttribute(name) || '';
  const texts = [attr('name'), attr('id'), attr('aria-label'), attr('title')];
  for (const label of Array.from((el as HTMLInputElement).labels || [])) texts.push(label.textContent || '');
  const fieldset = el.closest('fieldset');
  const legend = fieldset ? fieldset.querySelector(':scope > legend') : null;
  if (legend) texts.push(legend.textContent || '');
  return texts.some((t) => looksLikeCardCode(t)) ? (attr('name') || attr('id') || 'unnamed field').slice(0, 60) : null;
}

/** Request-side check of a field name (form field, JSON key, query parameter): heuristics plus names learned from the page. */
export function isCardCodeName(name: string, learned: ReadonlySet<string> = new Set()): boolean {
  for (const segment of name.split(/[[\].]+/).filter(Boolean)) {
    if (learned.has(segment.toLowerCase())) return true;
  }
  return looksLikeCardCode(name);
}
