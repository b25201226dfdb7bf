import type { DriverPage } from '../../../driver/page.ts';
import { framesFacts, snapshot, type ControlInfo, type Snapshot } from './snapshot.ts';
import { either, OVERLAY_WORDS as W } from './words.ts';
import { phrase } from '../../../driver/text.ts';

// What stands between the driver and the page: a cookie-consent banner (answered with the most
// private choice it offers: "reject all", "necessary only"), a promotional or newsletter pop-up
// (closed), an upgrade or add-on offered on the way on ("keep my fare", "no thanks"). A dialog that holds the booking's own step (a form, a choice of options) is the page.

const COOKIE = either(/\b(cookies?|consent|gdpr|tracking|privacy preferences|we value your privacy)\b/, W.consent);
const PROMO = /\b(newsletter|subscribe|sign up for|discount|% off|special offer|download our app|join our)\b/i;
const PRIVATE_CHOICE = [/\b(reject|decline|refuse|deny) all\b/i, phrase(W.privateChoice), /\b(only|strictly) (necessary|essential|required)\b|\b(necessary|essential|required) (cookies )?only\b/i, /\b(reject|decline|refuse|deny)\b/i, /\b(save|confirm) (my )?(choices|preferences|selection)\b/i];
const ANY_CHOICE = [either(/\b(accept|agree|allow|ok|okay|got it|i understand|continue)\b/, W.anyChoice)];
const CONSENT_CHOICE = /\b(accept|allow|agree to)( all)?( cookies)?\b/i;
const CLOSE = either(/^(close|×|✕|x|dismiss|no,? thanks|not now|maybe later|skip|cancel)\b/, W.close);
// An offer to pay more than what was chosen (a fare upgrade, an add-on, insurance), in a dialog that
// opens on the way on: answered with the choice that keeps what was chosen, and nothing else.
const UPSELL = either(/\b(upgrade|add-?ons?|extras?|insurance|protect (your|my)|flex(ible)?|premium|priority boarding|checked bag|seat selection)\b/, W.upsell);
const KEEP = [/\b(keep|stay with|continue with) (my|the|this|current)\b/i, phrase(W.keep), /\b(no,? thanks|no thank you|not now|skip|decline|continue without|without (the )?(upgrade|extras?|add-?ons?|insurance|protection)|no upgrade|i'?ll pass)\b/i];

/** The control that answers the overlay, or null when it is not one the driver should answer. */
export function answerFor(s: Snapshot, overlay: Snapshot['dialogs'][number]): ControlInfo | null {
  const index = s.dialogs.indexOf(overlay as Snapshot['dialogs'][number]);
  const inside = s.controls.filter((c) => c.inDialog === index && c.visible && !c.disabled);
  const pick = (patterns: RegExp[]) => {
    for (const p of patterns) {
      const hit = inside.find((c) => c.visible && !c.disabled && p.test(c.text));
      if (hit) return hit;
    }
    return null;
  };
  if (COOKIE.test(overlay.text)) return pick(PRIVATE_CHOICE) ?? pick(ANY_CHOICE) ?? pick([CLOSE]);
  if (UPSELL.test(overlay.text)) {
    // "Keep my fare", "No thanks"; else the one that goes on without naming the upgrade ("Continue with Standard").
    const keep = pick(KEEP) ?? inside.find((c) => /\b(continue|proceed|next)\b/i.test(c.text) && !UPSELL.test(c.text) && !/\b(yes|add|select|choose|get|buy|plus)\b/i.test(c.text));
    if (keep) return keep;
  }
  if (PROMO.test(overlay.text) && !s.fields.some((f) => f.visible && f.type !== 'email' && f.inDialog === index)) return pick([CLOSE]);
  return null;
}

/**
 * Presses a control that sends the step on (a search, the guest details, the review), after
 * answering what stands over the page: a consent box shows a moment after load (its script waits,
 * then fades it in), often after the page was last read, or even while the press waits for the
 * control to be enabled. When the control is covered, now or then, the page is read again and what
 * covers it answered; one that covers nothing is left for a later reading.
 */
export async function pressPastOverlays(page: DriverPage, selector: string, what: string): Promise<void> {
  await clearOverlays(page);
  if (await page.covered(selector)) await clearOverlays(page, await snapshot(page, true));
  if ((await page.pressUnlessCovered(selector, what)) === 'pressed') return;
  await clearOverlays(page, await snapshot(page, true));
  await page.press(selector, what);
}

/**
 * Answers the overlays the page shows, until none is left (at most a few: a consent banner may
 * open its own settings). Returns the last snapshot, current.
 */
export async function clearOverlays(page: DriverPage, first?: Snapshot): Promise<Snapshot> {
  let s = first ?? (await snapshot(page));
  for (let round = 0; round < 3; round++) {
    const overlay = s.dialogs.find((d) => answerFor(s, d));
    if (!overlay) return (await answerConsentFrame(page, s)) ?? s;
    const control = answerFor(s, overlay)!;
    await page.press(control.sel, `answer the page's "${overlay.text.slice(0, 40)}" notice (${control.text})`);
    s = await snapshot(page);
  }
  return s;
}

/** The one answer that goes on with a question about the choice just made ("Hold it", "Yes", "Confirm"). */
const GO_ON = either(/\b(yes|confirm|hold|ok|okay|continue|proceed|next)\b/, ['sí', 'sì', 'ja', 'oui', 'sim', 'continuar', 'continua', 'weiter', 'continuer', 'avanti', 'siguiente', 'suivant', 'próximo', 'seguinte', 'confirmar', 'conferma', 'bestätigen', 'confirmer']);
/** A question that speaks of paying or ordering, or states a price, is not one to answer for the person. */
const MONEY = either(/\b(pay|paid|payment|charged?|purchase|buy|order|checkout|card|total)\b|[€$£¥]|\b\d+[.,]\d{2}\b/, ['pagar', 'pago', 'paga', 'pagare', 'pagamento', 'bezahlen', 'zahlen', 'zahlung', 'payer', 'paiement', 'comprar', 'compra', 'acquista', 'kaufen', 'acheter', 'commande', 'bestellen', 'pedido', 'ordine', 'tarjeta', 'carta', 'karte', 'carte', 'cartão']);

/**
 * A question the page asks about the option just chosen, in a modal dialog with nothing to fill
 * ("Hold this table? We will hold it for 10 minutes": Hold it / Cancel, an APG alert dialog): answered
 * with its one control that goes on. A dialog offering several (a list of rates, each with its
 * "Reserve") is the page's choice, not a question, and is left alone; so is one that speaks of
 * paying, ordering or a price ("Confirm and pay €240"): that is the person's. Returns the page as it is then.
 */
export async function answerChoiceQuestion(page: DriverPage, s: Snapshot): Promise<Snapshot> {
  const index = s.dialogs.findIndex((d, i) => d.modal && !answerFor(s, d) && !MONEY.test(d.text) && !s.fields.some((f) => f.inDialog === i && f.visible && f.type !== 'hidden'));
  if (index < 0) return s;
  const go = s.controls.filter((c) => c.inDialog === index && c.visible && !c.disabled && GO_ON.test(c.text) && !CLOSE.test(c.text) && !MONEY.test(c.text));
  if (go.length !== 1) return s;
  await page.press(go[0]!.sel, `answer the page's question "${s.dialogs[index]!.text.slice(0, 40)}" (${go[0]!.text})`);
  return snapshot(page);
}

/**
 * A consent platform's banner that is a frame of its own over the page (Sourcepoint's, TrustArc's:
 * another origin, so none of the page's reading): its buttons are read in the frame and the most
 * private choice pressed there, as for a banner in the page. The page as it is then, or null when no
 * such frame shows.
 */
async function answerConsentFrame(page: DriverPage, s: Snapshot): Promise<Snapshot | null> {
  const over = s.frames.filter((f) => f.over && f.src);
  if (over.length === 0) return null;
  for (const facts of await framesFacts(page)) {
    const frame = facts.main ? undefined : over.find((f) => f.src === facts.src);
    if (!frame || facts.result.card || facts.result.fields > 0 || !COOKIE.test(facts.result.text)) continue;
    // A banner's own choices only: never a frame's "Continue" or "OK" (a booking engine in a frame may speak of consent).
    const choice = [...PRIVATE_CHOICE, CONSENT_CHOICE].map((p) => facts.result.buttons.find((b) => p.test(b.text))).find(Boolean);
    if (!choice) continue;
    await page.press(`${frame.sel} >> internal:control=enter-frame >> ${choice.sel}`, `answer the page's "${facts.result.text.slice(0, 40)}" notice in its frame (${choice.text})`);
    return snapshot(page);
  }
  return null;
}
