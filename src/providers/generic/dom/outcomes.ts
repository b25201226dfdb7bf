import type { Availability, Offer } from '../../../driver/types.ts';
import type { ControlInfo, Snapshot } from './snapshot.ts';
import { either, NONE_PHRASES } from './words.ts';

// What an availability page is, in the order a careful person would tell: a CAPTCHA (its frames,
// its words), a sign-in wall (a password field and sign-in words before any offer), the offers, an
// explicit "no availability" (an alert or status, or the page's own words), else not understood.

const CAPTCHA_FRAME = /recaptcha|hcaptcha|challenges\.cloudflare\.com|turnstile|captcha/i;
const CAPTCHA_WORDS = /\b(verify (that )?you are (a )?human|are you a robot|i'?m not a robot|captcha|security check|prove you('| a)re human|unusual (activity|traffic))\b/i;
const LOGIN_WORDS = /\b(sign ?in|log ?in|members? only|create an account|your account)\b/i;
export const NONE_WORDS = either(/\b(no (availability|tables?|rooms?|flights?|tickets?|seats?|results?|times?|slots?|options?)( (are|is))?( (available|left|found))?|not available|nothing (is )?available|sold out|fully booked|no longer available|there (is|are) no (availability|seats|tables|rooms|flights|tickets))\b/, NONE_PHRASES);

export interface FrameFacts {
  url: string;
  main: boolean;
  result: { card: boolean; captcha: boolean; text: string };
}

export function captchaIn(s: Snapshot, frames: FrameFacts[]): string | null {
  const frame = s.frames.find((f) => CAPTCHA_FRAME.test(f.src) || CAPTCHA_FRAME.test(f.title));
  if (frame) return `a CAPTCHA frame (${frame.title || hostOf(frame.src)})`;
  if (frames.some((f) => f.result.captcha)) return 'a CAPTCHA widget';
  const heading = s.headings.find((h) => CAPTCHA_WORDS.test(h));
  if (heading) return heading;
  const m = CAPTCHA_WORDS.exec(s.text.slice(0, 3000));
  return m ? m[0] : null;
}

export function loginWallIn(s: Snapshot): string | null {
  if (!s.passwordField) return null;
  return s.headings.find((h) => LOGIN_WORDS.test(h)) ?? (LOGIN_WORDS.exec(s.text.slice(0, 3000))?.[0] ?? null);
}

/**
 * The page's words that nothing is available. `venue`: the name asked for, whose own words never
 * count ("Results for “Sold Out Sessions”" says nothing about availability).
 */
export function noneMessage(s: Snapshot, venue?: string): string | null {
  const name = venue?.trim() ? new RegExp(venue.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi') : null;
  const says = (t: string) => NONE_WORDS.test(name ? t.replace(name, ' ') : t);
  const alert = s.alerts.find(says);
  if (alert) return alert;
  const heading = s.headings.find(says);
  if (heading) return heading;
  const text = name ? s.text.replace(name, (m) => ' '.repeat(m.length)) : s.text;
  const m = NONE_WORDS.exec(text);
  if (!m) return null;
  // The sentence around the words, as the page says it.
  const start = Math.max(0, s.text.lastIndexOf('.', m.index) + 1);
  const end = s.text.indexOf('.', m.index + m[0].length);
  return s.text.slice(start, end < 0 ? m.index + 160 : end + 1).trim().slice(0, 200);
}

export function classify(s: Snapshot, frames: FrameFacts[], offers: Offer[], venue?: string): Availability {
  const captcha = captchaIn(s, frames);
  if (captcha) return { kind: 'captcha', message: captcha };
  const login = loginWallIn(s);
  // A sign-in form in the page's body, titled as one, stands before whatever else it shows.
  if (login && (s.headings.some((h) => LOGIN_WORDS.test(h)) || !offers.some((o) => o.available))) return { kind: 'login_wall', message: login };
  if (!offers.some((o) => o.available)) {
    const none = noneMessage(s, venue);
    if (none) return { kind: 'none', message: none };
  }
  if (offers.length) return { kind: 'offers', offers };
  return { kind: 'unexpected', message: '' };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an iframe';
  }
}

// A request the site will answer itself, not a booking ("Request for reservation sent", "the hotel
// will confirm by email"), in the languages of booking sites.
const REQUEST_SENT = either(
  /\b(request|enquiry|inquiry)\b[^.]{0,40}\b(sent|received|submitted|has been sent|was sent)\b|\b(reservation|booking) request\b|\bwe will (confirm|contact you|get back to you)\b|\bwill confirm (your|the) (booking|reservation|request)\b|\b(awaiting|pending) confirmation\b/,
  ['solicitud enviada', 'solicitud recibida', 'hemos recibido su solicitud', 'le confirmaremos', 'richiesta inviata', 'richiesta ricevuta', 'abbiamo ricevuto la tua richiesta', 'ti confermeremo', 'anfrage gesendet', 'anfrage erhalten', 'ihre anfrage wurde', 'wir bestätigen', 'demande envoyée', 'demande reçue', 'nous vous confirmerons', 'pedido enviado', 'pedido recebido', 'solicitação enviada', 'confirmaremos'],
);

/** A button that starts over rather than goes on ("New check", "Search again"): the end page may keep one. */
const START_AGAIN = either(/\b(new (search|check|request|booking|reservation|enquiry)|start over|search again|back|home)\b/, ['nueva búsqueda', 'nuova ricerca', 'neue suche', 'nouvelle recherche', 'nova pesquisa']);

/**
 * The site's words that it took a request rather than made a booking, or null: said in a heading or
 * a message, on a page that asks for nothing more (no field to fill, no card).
 */
export function requestSentIn(s: Snapshot): string | null {
  // A review of a "booking request" still has its button to go on: only a page with nothing left to do is the end.
  if (s.fields.some((f) => f.visible && !f.disabled && f.type !== 'hidden' && f.region === 'main' && (f.card || f.type !== 'checkbox'))) return null;
  if (s.controls.some((c) => c.visible && !c.disabled && c.submits && c.region === 'main' && !START_AGAIN.test(c.text))) return null;
  // Said in a heading or a message, else in a line of its own ("Request for reservation sent from ada@example.com.").
  const said = s.headings.find((h) => REQUEST_SENT.test(h)) ?? s.alerts.find((a) => REQUEST_SENT.test(a)) ?? s.lines.find((l) => l.length < 300 && REQUEST_SENT.test(l));
  if (!said) return null;
  // The heading and the two sentences after it (who will confirm, how, when), as the page says them.
  const at = s.text.indexOf(said);
  const after = at >= 0 ? s.text.slice(at + said.length).trim() : '';
  const next = /^(?:[^.!?]{3,200}[.!?](?:\s|$)){1,2}/.exec(after)?.[0].trim() ?? '';
  return `${said}${/[.!?]$/.test(said) ? '' : '.'}${next ? ` ${next}` : ''}`.slice(0, 300);
}

// A control that places an order the person must pay without a card step: named binding in so many
// words, or an order/buy control on a page that pays by transfer or invoice.
const BINDING_WORDS = either(/\b(binding order|obligation to pay|order with obligation)\b/, ['zahlungspflichtig bestellen', 'kostenpflichtig bestellen', 'pedido vinculante', 'obbligo di pagamento', 'obligation de paiement', 'obrigação de pagamento', 'compra vinculante']);
const ORDER_WORDS = either(/\b(place (your |my )?order|complete (your |my )?(order|purchase)|submit order|order now|buy now|confirm (and|&) pay|purchase)\b/, ['jetzt kaufen', 'bestellen', 'realizar pedido', 'comprar ahora', 'confirmar compra', 'effettua ordine', 'conferma ordine', 'acquista ora', 'passer la commande', 'commander', 'acheter maintenant', 'finalizar encomenda', 'finalizar compra', 'comprar agora']);
const NO_CARD_METHOD = either(/\b(bank transfer|wire transfer|pay by transfer|invoice|direct debit)\b/, ['überweisung', 'vorkasse', 'rechnung', 'lastschrift', 'transferencia', 'bonifico', 'virement', 'transferência', 'boleto', 'pix', 'multibanco']);

/** The control that would place a binding order with no card step (the person's to press), or null. */
export function bindingOrderOn(s: Snapshot): ControlInfo | null {
  if (s.fields.some((f) => f.card && f.visible) || s.frames.length > 0 && s.frames.some((f) => /pay|card|checkout/i.test(`${f.src} ${f.title}`))) return null;
  const usable = s.controls.filter((c) => c.visible && !c.disabled && c.type !== 'radio' && c.region === 'main' && (c.submits || c.tag === 'button' || c.role === 'button'));
  const named = usable.find((c) => BINDING_WORDS.test(c.text));
  if (named) return named;
  return NO_CARD_METHOD.test(s.text) ? usable.find((c) => ORDER_WORDS.test(c.text)) ?? null : null;
}
