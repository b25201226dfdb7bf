import type { DriverPage } from '../../../driver/page.ts';
import type { Availability, Offer, PaymentPage, ReviewPage, SearchRequest } from '../../../driver/types.ts';
import type { Strategy, StepContext } from '../strategy.ts';
import { confirmationCode } from './confirmation.ts';
import { agreementsToTick, fillGuest, guestFormOn } from './guest.ts';
import { amountDue, cardOnFileIn, readHeld, withIsoDates } from './held.ts';
import { NotUnderstood } from './not-understood.ts';
import { continueAfterRadio, decodeKey, orderBoxes, pageAsOffer, readOffers, starRating } from './offers.ts';
import { bindingOrderOn, classify, requestSentIn } from './outcomes.ts';
import { answerChoiceQuestion, clearOverlays, pressPastOverlays } from './overlays.ts';
import { untilAnswered } from './busy.ts';
import { fillAndSubmit, search, searchForm, submitOf, type Plan } from './search.ts';
import { assign, fillable, searchRules, searchValue, wordsOf, type Concept } from './fields.ts';
import { framesFacts, snapshot, type ControlInfo, type FieldInfo, type Snapshot } from './snapshot.ts';
import { CONTROL_WORDS, either } from './words.ts';
import { offersInTabs, openHiddenChoices } from './widgets.ts';
import { datesIn } from '../../../driver/text.ts';
import { sameName } from '../../../driver/names.ts';
import { safeUrl } from '../../../security/text.ts';
import { specOf } from '../../../scenarios/index.ts';

// The page as a person and a screen reader see it: every step reads the page once (snapshot), works
// out what it is from web standards (labels, ARIA, autocomplete tokens, input types, schema.org),
// and acts through the guarded page API only. It never declines: it is the last strategy.

const CHROME = new Set(['header', 'nav', 'footer', 'aside']);
const NOT_ONWARD = either(/\b(edit|back|modify|cancel|change|remove|sign ?in|log ?in|start over|new search|previous|help)\b/, CONTROL_WORDS.back);
const ONWARD = either(/\b(pay|payment|checkout|check out|confirm|book|reserve|proceed|complete|continue|place order|purchase|next|buy)\b/, CONTROL_WORDS.onward, CONTROL_WORDS.pay);
const PAY_OR_CONFIRM = either(/\b(pay|purchase|place order|complete|buy|book|confirm)\b/, CONTROL_WORDS.pay, ['confirmar', 'conferma', 'bestätigen', 'confirmer', 'comprar', 'acquista', 'kaufen', 'acheter']);
const PAY_WORDS = either(/\b(pay|payment|checkout|card)\b/, CONTROL_WORDS.pay);
const NO_CARD = /\b(no card|pay (at|on) (the )?(venue|restaurant|hotel|property|door|airport|arrival|night|box office)|pay later|no (online )?payment|nothing (is |will be )?charged|pay on the (door|night))\b/i;

interface DomNotes {
  reviewIsPayment?: boolean;
}

function notes(ctx: StepContext): DomNotes {
  let n = ctx.state.notes.get('dom') as DomNotes | undefined;
  if (!n) ctx.state.notes.set('dom', (n = {}));
  return n;
}

/** The control that goes on from a review page (not "edit", not "back"). */
function onward(s: Snapshot): ControlInfo | null {
  const usable = s.controls.filter((c) => c.visible && !c.disabled && c.type !== 'radio' && !CHROME.has(c.region) && !NOT_ONWARD.test(c.text));
  return usable.find((c) => c.submits && ONWARD.test(c.text)) ?? usable.find((c) => ONWARD.test(c.text) && c.tag !== 'a') ?? usable.find((c) => ONWARD.test(c.text)) ?? null;
}

const PAYMENT_METHOD = either(/\b(payment|pay|card|credit|debit|bank transfer|transfer|invoice|paypal|sepa)\b/, CONTROL_WORDS.pay, ['tarjeta', 'carta', 'karte', 'carte', 'cartão', 'transferencia', 'bonifico', 'überweisung', 'virement', 'transferência', 'rechnung', 'factura', 'fattura', 'facture', 'fatura']);
const BY_CARD = either(/\b(card|credit|debit|visa|mastercard)\b/, ['tarjeta', 'carta', 'karte', 'carte', 'cartão']);

/**
 * A choice of payment method the page asks for before going on, none chosen yet (pretix's payment
 * step): the card where there is one (the attempt stops at its code for the person), else the only
 * or first method. Null when a method is chosen already or the page asks none.
 */
function paymentMethodToChoose(s: Snapshot, next: ControlInfo): FieldInfo | null {
  const radios = s.fields.filter((f) => f.type === 'radio' && f.visible && !f.disabled && (next.form < 0 || f.form === next.form));
  const methods = radios.filter((f) => PAYMENT_METHOD.test(`${f.label} ${f.text}`));
  if (methods.length === 0 || radios.some((f) => f.checked && f.name === methods[0]!.name)) return null;
  const group = methods.filter((f) => f.name === methods[0]!.name);
  return group.find((f) => BY_CARD.test(`${f.label} ${f.text}`)) ?? group[0]!;
}

function cardFieldOn(s: Snapshot): string | null {
  return s.fields.find((f) => f.card && f.visible)?.sel ?? null;
}

/** A card-code field in any frame: its selector, or the selector of the iframe that holds it. */
async function cardField(page: DriverPage, s: Snapshot): Promise<string | null> {
  const onPage = cardFieldOn(s);
  if (onPage) return onPage;
  if (s.frames.length === 0) return null;
  for (const f of await framesFacts(page)) {
    if (f.main || !f.result.card) continue;
    const owner = s.frames.find((x) => x.src === f.url) ?? s.frames.find((x) => f.url.startsWith(x.src) && x.src !== '');
    return owner?.sel ?? s.frames[0]!.sel;
  }
  return null;
}

function evidence(s: Snapshot): string {
  const parts = [
    s.headings.length ? `headings ${s.headings.slice(0, 3).map((h) => `"${h.slice(0, 60)}"`).join(', ')}` : 'no headings',
    s.alerts.length ? `messages ${s.alerts.slice(0, 3).map((a) => `"${a.slice(0, 80)}"`).join(', ')}` : '',
    `${s.controls.filter((c) => c.visible).length} controls`,
  ].filter(Boolean);
  return parts.join('; ');
}

export const domStrategy: Strategy = {
  name: 'dom',

  async search(ctx, request) {
    await search(ctx.page, ctx.provider.startUrl, request);
  },

  async availability(ctx): Promise<Availability> {
    let s = await untilAnswered(ctx.page, await clearOverlays(ctx.page));
    s = (await openHiddenChoices(ctx.page, s)) ?? s;
    const request = ctx.state.request;
    let offers = readOffers(s, ctx.provider.scenario);
    for (let depth = 0; request && depth < 3; depth++) {
      // A list of venues (events, hotels) rather than options to book: open the one asked for.
      const venue = venueOffer(offers, request);
      const key = venue ? decodeKey(venue.key) : null;
      if (venue && key?.sel) {
        await ctx.page.press(key.sel, `open ${venue.label.slice(0, 60)}`);
      } else {
        // The venue's own page asks for what the search could not (the day, how many): fill it in and send it.
        const plan = offers.some((o) => o.available) ? null : searchForm(s, request);
        if (!plan || !needsFilling(plan, request, s)) break;
        // The search itself sent back (it asks again for where or what, beside what it refused): sent
        // again it would only be refused again. What it says is the evidence.
        if (SEARCH_ITSELF.some((concept) => plan.fields.has(concept))) break;
        await fillAndSubmit(ctx.page, plan, request, 'search');
      }
      s = await clearOverlays(ctx.page);
      offers = readOffers(s, ctx.provider.scenario);
    }
    offers = await offersInTabs(ctx.page, s, offers, (x) => readOffers(x, ctx.provider.scenario));
    const frames = s.frames.length ? await framesFacts(ctx.page) : [];
    const found = classify(s, frames, offers, request && request.scenario !== 'flight' ? request.venue : undefined);
    // A hotel's rating is the property's, stated once on its page (schema.org starRating, "4-star", "★★★★").
    if (found.kind === 'offers' && ctx.provider.scenario === 'hotel') {
      const stars = starRating(s);
      if (stars !== undefined) return { kind: 'offers', offers: found.offers.map((o) => ({ ...o, stars })) };
    }
    if (found.kind !== 'unexpected') return found;
    // Availability stated in words with the guest form already below it: the page is the one option.
    const asOffer = request && guestFormOn(s) ? pageAsOffer(s) : null;
    if (asOffer) return { kind: 'offers', offers: [asOffer] };
    const invalid = s.fields.filter((f) => f.invalid).map((f) => `${f.label || f.name}${f.validationMessage ? `: ${f.validationMessage}` : ''}`);
    return {
      kind: 'unexpected',
      message: `the generic driver could not go on at the availability step on ${safeUrl(s.url) || 'the page'}: it looked for options to choose (radio inputs, buttons, rows or cards with a time or a price), a "no availability" notice, a sign-in wall or a CAPTCHA, and found ${invalid.length ? `the search form refusing ${invalid.slice(0, 3).join('; ')}` : evidence(s)}`,
    };
  },

  async choose(ctx, offer) {
    const key = decodeKey(offer.key);
    // The page itself is the option (pageAsOffer): it is chosen by going on with it.
    if (key?.how === 'stay') return;
    if (key?.how === 'quantity') {
      await orderQuantity(ctx, key.sel, offer);
      return;
    }
    if (!key || !key.sel) throw new NotUnderstood('choose an option', ctx.page.url(), `a control for "${offer.label}"`, 'none (the option shows no control)');
    // An option in a tab not shown now: its tab first.
    if (key.tab && !(await snapshot(ctx.page)).controls.find((c) => c.sel === key.sel)?.visible) await ctx.page.press(key.tab, `show the tab that holds ${offer.label.slice(0, 40)}`);
    if (key.how === 'radio') {
      await ctx.page.check(key.sel);
      const s = await snapshot(ctx.page);
      // The option's form may also ask how many (tickets, seats): answered before going on.
      const radio = s.controls.find((c) => c.sel === key.sel);
      const request = ctx.state.request;
      if (radio && radio.form >= 0 && request) {
        const fields = s.fields.filter((f) => f.form === radio.form && (fillable(f) || f.type === 'stepper'));
        const plan = { form: radio.form, fields: assign(fields, searchRules(request.scenario)), score: 0 };
        if (needsFilling(plan, request)) {
          await fillAndSubmit(ctx.page, plan, request, 'choose an option');
          await clearOverlays(ctx.page);
          return;
        }
      }
      const next = continueAfterRadio(s, key.sel);
      if (next) {
        await ctx.page.press(next.sel, `go on with ${offer.label.slice(0, 40)} (${next.text})`);
        // The same page back, the choice unticked and a message shown: the site did not take the
        // choice (a page that redrew its list). Chosen once more; then the site's words are the evidence.
        for (let again = 0; ; again++) {
          const back = await clearOverlays(ctx.page);
          const said = notTaken(s, back, key.sel);
          if (said === null) break;
          if (again === 1) throw new NotUnderstood('choose an option', ctx.page.url(), `the page after choosing "${offer.label.slice(0, 60)}"`, `the same page again, saying "${said.slice(0, 120)}"`);
          await ctx.page.check(key.sel);
          await ctx.page.press(next.sel, `go on with ${offer.label.slice(0, 40)} once more (${next.text})`);
        }
      }
    } else {
      await ctx.page.press(key.sel, `choose ${offer.label.slice(0, 60)}`);
      await answerChoiceQuestion(ctx.page, await clearOverlays(ctx.page));
      return;
    }
    await clearOverlays(ctx.page);
  },

  async guestDetails(ctx, traveller) {
    await fillGuest(ctx.page, traveller, specOf(ctx.provider.scenario).travellers === 'lead');
  },

  async review(ctx): Promise<ReviewPage | null> {
    const s = await clearOverlays(ctx.page);
    const scenario = ctx.provider.scenario;
    // A request the site answers later ("Request for reservation sent"): no review, nothing to pay.
    const requested = requestSentIn(s);
    const namedAs = ownName(ctx);
    if (requested) return { held: readHeld(s, scenario, namedAs), noCardStep: true, requestSent: requested };
    // A page that takes the card code at once is review and payment in one; so is one whose button
    // places a binding order without a card (the person's to press).
    if (await cardField(ctx.page, s) || bindingOrderOn(s)) {
      notes(ctx).reviewIsPayment = true;
      return { held: readHeld(s, scenario, namedAs), noCardStep: false };
    }
    // Still a form asking for something (the guest details refused): not the review.
    // (An unticked required box is no refusal: a box the browser reads as invalid until ticked.)
    if (s.fields.some((f) => f.visible && !f.card && f.type !== 'checkbox' && f.type !== 'radio' && (f.invalid || (f.required && f.value === '')))) return null;
    const next = onward(s);
    if (!next || datesIn(withIsoDates(s.text, s.lang)).length === 0) return null;
    return { held: readHeld(s, scenario, namedAs), noCardStep: NO_CARD.test(s.text) && !PAY_WORDS.test(next.text) };
  },

  async confirmReview(ctx) {
    if (notes(ctx).reviewIsPayment) return;
    const s = await snapshot(ctx.page);
    const next = onward(s);
    if (!next) throw new NotUnderstood('review', ctx.page.url(), 'the button that goes on from the review (continue, payment, confirm)', evidence(s));
    // The booking's own required agreement ("I accept the conditions"), as on the guest form.
    for (const box of agreementsToTick(s)) await ctx.page.check(box.sel);
    const method = paymentMethodToChoose(s, next);
    if (method) await ctx.page.check(method.sel);
    await pressPastOverlays(ctx.page, next.sel, `go on from the review (${next.text})`);
    await clearOverlays(ctx.page);
  },

  async payment(ctx): Promise<PaymentPage | null> {
    const s = await clearOverlays(ctx.page);
    const field = await cardField(ctx.page, s);
    const price = amountDue(s);
    const card = cardOnFileIn(s);
    if (field) return { cardField: field, ...(price ? { price } : {}), ...(card ? { cardOnFile: card } : {}) };
    const binding = bindingOrderOn(s);
    if (binding) return { cardField: '', bindingOrder: binding.text, ...(price ? { price } : {}) };
    // A payment page that asks for no code (it would charge the card on file): the executor stops before Pay.
    if (card && /\b(pay|payment|checkout|purchase)\b/i.test(`${s.title} ${s.headings.join(' ')}`)) return { cardField: 'input[autocomplete~="cc-csc"]', ...(price ? { price } : {}), cardOnFile: card };
    return null;
  },

  async pay(ctx) {
    const s = await snapshot(ctx.page);
    const card = s.fields.find((f) => f.card && f.visible);
    const usable = s.controls.filter((c) => c.visible && !c.disabled && c.type !== 'radio' && !CHROME.has(c.region) && !NOT_ONWARD.test(c.text));
    const control = (card && card.form >= 0 ? usable.find((c) => c.form === card.form && c.submits) : undefined)
      ?? usable.find((c) => PAY_OR_CONFIRM.test(c.text))
      ?? usable.find((c) => c.submits);
    if (!control) {
      // The card form is a payment partner's frame with its own Pay button (hosted fields, another
      // origin): going on means going into that frame, which the guard refuses at its code field.
      const field = await cardField(ctx.page, s);
      const frame = field ? s.frames.find((f) => f.sel === field) : undefined;
      if (frame) {
        await ctx.page.press(frame.sel, `pay in the payment frame${frame.title ? ` (${frame.title})` : ''}`);
        return;
      }
      throw new NotUnderstood('payment', ctx.page.url(), 'the Pay button', evidence(s));
    }
    await ctx.page.press(control.sel, `pay (${control.text})`);
  },

  async confirmation(ctx) {
    const s = await snapshot(ctx.page, true);
    return confirmationCode(s, cardFieldOn(s) !== null);
  },

  async formErrors(ctx) {
    const s = await snapshot(ctx.page, true);
    const out = [...s.alerts];
    // The site's messages, then the browser's own for fields it refused to send (required, pattern).
    for (const f of s.fields) if ((f.invalid || f.validationMessage) && f.visible && !f.card) out.push(`${f.label || f.name}${f.validationMessage ? `: ${f.validationMessage}` : ' is not accepted'}`);
    // Fields the page marked in red and said nothing of (unless it colours every label so).
    const shown = s.fields.filter((f) => f.visible && !f.card && f.type !== 'hidden');
    const flagged = shown.filter((f) => f.flagged && !f.invalid);
    if (flagged.length < shown.length) for (const f of flagged) out.push(`${f.label || f.name} is marked as not accepted (in red, with no message)`);
    return [...new Set(out)].slice(0, 10);
  },
};

/** An order form's option: its number box set to how many are asked (the other rows' to none), and the form sent ("Add to cart"). */
async function orderQuantity(ctx: StepContext, sel: string, offer: Offer): Promise<void> {
  const s = await snapshot(ctx.page);
  const box = s.fields.find((f) => f.sel === sel);
  const request = ctx.state.request;
  const want = request ? searchValue(request, 'quantity') : undefined;
  if (!box || want === undefined) throw new NotUnderstood('choose an option', ctx.page.url(), `the number box of "${offer.label.slice(0, 60)}"`, box ? 'no number asked for' : 'none');
  const others = orderBoxes(s).filter((f) => f.form === box.form && f.sel !== sel && f.value !== '' && f.value !== '0');
  await ctx.page.fillForm([[sel, want], ...others.map((f): [string, string] => [f.sel, '0'])]);
  const submit = submitOf(await snapshot(ctx.page), box.form);
  if (!submit) throw new NotUnderstood('choose an option', ctx.page.url(), 'the button that sends the order form', evidence(s));
  await pressPastOverlays(ctx.page, submit.sel, `order ${want} of ${offer.label.slice(0, 40)} (${submit.text})`);
  await clearOverlays(ctx.page);
}

/** The provider's registered name when it is the venue asked for (its site is that venue's own). */
function ownName(ctx: StepContext): string | undefined {
  const request = ctx.state.request;
  if (!request || request.scenario === 'flight') return undefined;
  return sameName(request.venue, ctx.provider.name, request.city).same ? ctx.provider.name : undefined;
}

/** The site's message when pressing on came back to the same choice unticked (null: it went on). */
function notTaken(before: Snapshot, after: Snapshot, radioSel: string): string | null {
  if (after.url !== before.url) return null;
  const radio = after.fields.find((f) => f.sel === radioSel && f.type === 'radio');
  if (!radio || radio.checked) return null;
  const fresh = after.alerts.filter((a) => !before.alerts.includes(a));
  return fresh[0] ?? null;
}

/**
 * An offer that is the venue asked for, in a list of venues (search results, not booking options):
 * a list with no prices, or one where the venue's name is on one item only among several (others
 * are other venues or events; "from €30 per person" is a listing's price, not an option's).
 */
function venueOffer(offers: Offer[], request: SearchRequest): Offer | null {
  if (request.scenario === 'flight' || offers.some((o) => o.time !== undefined && request.scenario === 'restaurant')) return null;
  const name = wordsOf(request.venue);
  let named = offers.filter((o) => o.available && wordsOf(o.label).includes(name));
  // The same venue or event on several dates (a series): the one on the day asked for, or none.
  const day = request.scenario === 'hotel' ? request.checkIn : request.date;
  if (named.some((o) => datesIn(o.label).length > 0)) named = named.filter((o) => datesIn(o.label).includes(day));
  if (!offers.some((o) => o.priceText !== undefined)) return named[0] ?? null;
  return named.length === 1 && offers.length >= 2 ? named[0]! : null;
}

/** What only the search asks (where, which venue): a page asking for it again is the search form, not a venue's page. */
const SEARCH_ITSELF: Concept[] = ['venue', 'city', 'origin', 'destination'];

/**
 * Does the form ask for a part of the request it does not hold yet (an empty date, a different
 * number, or a day to pick in a date picker when it has no date field)?
 */
function needsFilling(plan: Plan, request: SearchRequest, s?: Snapshot): boolean {
  const day = request.scenario === 'hotel' ? 'checkIn' : 'date';
  if (s && !plan.fields.has(day) && searchValue(request, day) !== undefined && s.controls.some((c) => c.visible && !c.disabled && datesIn(c.text).length > 0)) return true;
  for (const [concept, fields] of plan.fields) {
    const want = searchValue(request, concept);
    if (want === undefined || !['date', 'checkIn', 'checkOut', 'quantity', 'time'].includes(concept)) continue;
    const f = fields[0]!;
    if (f.value === '' || (concept === 'quantity' && Number.parseInt(f.value, 10) !== Number(want) && !f.options.some((o) => o.value === f.value && new RegExp(`^\\D*${want}\\b`).test(o.text)))) return true;
  }
  return false;
}
