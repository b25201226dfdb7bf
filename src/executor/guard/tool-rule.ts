import { looksLikeCardCode } from '../../driver/card-fields.ts';
import type { DeclaredTool } from '../../driver/webmcp.ts';

// The payment guard's rule for WebMCP tools, decided from what the page declares about a tool (its
// name, description, input schema and annotations): a tool that asks for a card security code, or
// whose call would pay, is never called. Over-matching is the safe side: a tool wrongly taken for a
// payment is only never called (the job pauses for the person instead). What a tool does when
// called is page script: a tool that lies about itself is the in-page and network layers' to stop.

export type ToolDanger =
  /** `field`: the input (or the part of the tool) that asks for the code. */
  | { kind: 'card_code'; field: string; why: string }
  | { kind: 'payment'; why: string };

/** Longest text the rule reads in one tool; a tool that declares more is not called (see webmcp.ts). */
export const MAX_TOOL_TEXT = 100_000;

/** looksLikeCardCode reads 300 characters: a long text is read in overlapping windows. */
function mentionsCardCode(text: string): boolean {
  for (let at = 0; at < Math.min(text.length, MAX_TOOL_TEXT); at += 200) {
    if (looksLikeCardCode(text.slice(at, at + 300))) return true;
  }
  return false;
}

/** Words that place a text in the card's world (a 3- or 4-digit pattern there is the code). */
const CARD_CONTEXT = /\b(cards?|credit|debit|visa|master ?card|amex|american express|payments?|billing|cc|cardholder)\b/;

/** A pattern that accepts exactly 3 or 4 digits (a card code's shape). */
const CODE_SHAPE = /\\d\{3(,4)?\}|\[0-9\]\{3(,4)?\}|\\d\\d\\d|\[0-9\]\[0-9\]\[0-9\]|\\d\{4\}|\[0-9\]\{4\}/;

/** Identifier and text, as words: `placeOrder`, `place_order`, `Place order` → "place order". */
function words(text: string): string {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** A tool name that says it pays (any of these words, or an order completed). */
const PAYING_NAME = /(^| )(pay|pays|payment|payments|purchase|purchases|checkout|charge|charges|buy|billing|bill|capture|prepay|prepayment)( |$)|(^| )(place|submit|complete|confirm|finali[sz]e|finish) (the |an |my |your )?(order|purchase|checkout)( |$)|paynow|checkout|buynow|placeorder/;

/** Payment wording in a description, a title or an input's description. */
const PAYING_TEXT = /\b(pay|pays|paying|paid|payment|payments|purchase|purchases|purchasing|checkout|check out|charge|charges|charged|charging|buy|buys|buying|billing|billed|debit (the|your)|prepay\w*|deposit)\b|\b(place|submit|complete|confirm|finali[sz]e)(s|d|es|ed|ted|ing)? (the |an |your |this )?(order|purchase)\b/;

/**
 * Phrases that deny a payment ("no payment is taken", "pay at the hotel"): an ordinary tool's
 * description may reassure so. They are not read as payment wording, except in a tool the page
 * itself marks as consequential (there any payment wording is enough).
 */
const NOT_PAYING = [
  /\b(no|without( any)?|nothing to|never|not)( \w+){0,2} (payment|pay|paying|charge|charging|purchase|deposit)s?\b/g,
  /\b(is|are|will|be|gets?)( not| never|n't)( be)? (charged|billed|debited|taken|paid)\b/g,
  /\bnothing (is|will be) (charged|taken|paid|billed)\b/g,
  /\b(free of charge|no charge|no-charge)\b/g,
  /\bpay(ment)?( \w+)? (later|on arrival|on the day|at the (venue|restaurant|hotel|property|desk|door|counter|airport|gate|box office))\b/g,
  /\bbefore (any |the )?(payment|paying|checkout)\b/g,
];

/** A hotel's check-out (a date, not a till): "check-out date", "checkout", beside a check-in. */
function withoutHotelCheckout(t: string): string {
  if (!/check[- _]?in|arriv/.test(t) && !/check[- _]?outs?[ _-]?(date|day|time|on)/.test(t)) return t;
  return t.replace(/check[- _]?outs?/g, ' ');
}

/** A tool name about the hotel's check-out date or time ("set_checkout_date", "checkOutDay"). */
function withoutCheckoutDate(name: string): string {
  return name.replace(/check[- _]?outs?[ _-]?(date|day|time)/g, ' ');
}

function paymentWording(text: string, consequential: boolean): string | null {
  let t = withoutHotelCheckout(text.slice(0, MAX_TOOL_TEXT).toLowerCase().replace(/\s+/g, ' '));
  if (!consequential) for (const negation of NOT_PAYING) t = t.replace(negation, ' ');
  const found = PAYING_TEXT.exec(t);
  return found ? found[0] : null;
}

/** Inputs whose name says they carry payment details (a card number, a saved card, a payment method). */
const PAYING_INPUT = /(^| )(card (number|token|holder|expiry|exp|on file|id)|cc (number|exp|name)|payment( \w+)?|billing( \w+)?|saved card|pan|iban|bank account)( |$)/;

interface SchemaPart {
  path: string;
  key: string | null;
  node: Record<string, unknown>;
}

/** Every schema node (properties, items, combinators, definitions), with its property path. */
function schemaParts(schema: unknown, path = 'input', key: string | null = null, out: SchemaPart[] = [], depth = 0): SchemaPart[] {
  if (depth > 20 || schema === null || typeof schema !== 'object' || Array.isArray(schema)) return out;
  const node = schema as Record<string, unknown>;
  out.push({ path, key, node });
  for (const bag of ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']) {
    const props = node[bag];
    if (props && typeof props === 'object' && !Array.isArray(props)) {
      for (const [name, sub] of Object.entries(props)) schemaParts(sub, `${path}.${name}`, bag === 'properties' || bag === 'patternProperties' ? name : key, out, depth + 1);
    }
  }
  for (const one of ['items', 'additionalProperties', 'contains', 'not', 'if', 'then', 'else', 'propertyNames']) {
    if (node[one] && typeof node[one] === 'object') schemaParts(node[one], path, key, out, depth + 1);
  }
  for (const many of ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items']) {
    const list = node[many];
    if (Array.isArray(list)) for (const sub of list) schemaParts(sub, path, key, out, depth + 1);
  }
  return out;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Why this tool must not be called, or null. */
export function toolDanger(tool: DeclaredTool): ToolDanger | null {
  const parts = schemaParts(tool.inputSchema);
  const consequential = tool.annotations?.consequential === true;

  // 1. The card security code, by any name: in the tool's own name and description, in an input's
  // name, title or description (a prompt injection telling the agent to enter the code included).
  if (looksLikeCardCode(tool.name)) return { kind: 'card_code', field: tool.name, why: 'its name asks for the card security code' };
  if (mentionsCardCode(tool.description)) return { kind: 'card_code', field: tool.name, why: 'its description asks for the card security code' };
  const allText = [tool.name, tool.description];
  for (const { key, node } of parts) {
    if (key) allText.push(key);
    allText.push(text(node.title), text(node.description));
  }
  const cardContext = CARD_CONTEXT.test(words(allText.join(' ')));
  for (const { path, key, node } of parts) {
    if (key && looksLikeCardCode(key)) return { kind: 'card_code', field: path, why: `its input '${key}' is a card security code` };
    for (const t of [text(node.title), text(node.description)]) {
      if (t && mentionsCardCode(t)) return { kind: 'card_code', field: path, why: `its input '${key ?? 'input'}' is described as the card security code` };
    }
    if (node.format === 'cc-csc' || text(node['x-autocomplete']).includes('cc-csc')) return { kind: 'card_code', field: path, why: `its input '${key ?? 'input'}' is marked as the card security code` };
    const pattern = text(node.pattern);
    const shortDigits = typeof node.maxLength === 'number' && node.maxLength >= 3 && node.maxLength <= 4 && /\\d|\[0-9\]/.test(pattern);
    if (cardContext && (CODE_SHAPE.test(pattern) || shortDigits)) {
      return { kind: 'card_code', field: path, why: `its input '${key ?? 'input'}' takes three or four digits in a tool about a card` };
    }
  }

  // 2. A call that pays: the name, the description, an input that carries payment details, or a
  // consequential tool that mentions payment at all.
  // A name is short and chosen by the page: "checkout" in it pays unless the name is about the
  // date itself ("set_checkout_date"); a check-in or an arrival elsewhere in the name proves nothing
  // ("checkout_on_arrival" is still a checkout).
  const name = withoutCheckoutDate(words(tool.name));
  const paying = PAYING_NAME.exec(name) ?? PAYING_NAME.exec(withoutCheckoutDate(tool.name.toLowerCase()));
  if (paying) return { kind: 'payment', why: `its name says it pays ('${paying[0].trim()}')` };
  const said = paymentWording(tool.description, consequential);
  if (said) return { kind: 'payment', why: `its description says it pays ('${said}')${consequential ? ', and the page marks it as consequential' : ''}` };
  for (const { key, node } of parts) {
    if (key && PAYING_INPUT.test(words(key))) return { kind: 'payment', why: `its input '${key}' carries payment details` };
    const inputSaid = paymentWording(`${text(node.title)} ${text(node.description)}`, consequential);
    if (inputSaid) return { kind: 'payment', why: `its input '${key ?? 'input'}' is described with payment wording ('${inputSaid}')` };
  }
  return null;
}
