import { schemaReservation } from './held.ts';
import type { Snapshot } from './snapshot.ts';

// The booking confirmation, recognised after the person pays: schema.org Reservation data
// (reservationNumber, confirmationNumber, reservationId) where the page publishes it, else the code
// the page names in words ("Confirmation number: TB-7KQ2XM", "Your booking reference is …").

const NAMED = /\b(confirmation|reservation|booking|order|reference|ref|pnr)\b(?:\s+(?:number|no\.?|code|reference|ref|id|#))?(?:\s*\([A-Za-z]+\))?\s*(?:is|:|#|-)?\s*([A-Za-z0-9][A-Za-z0-9-]{3,24})\b/gi;
const PAGE_SAYS_DONE = /\b(confirmed|confirmation|booked|thank you|thanks|all set|success|complete[d]?|you'?re going|have a great)\b/i;

// Words a page puts where a code might stand ("Booking: CONFIRMED"); none of them is a code.
const STATUS_WORDS = /^(CONFIRMED|COMPLETED?|PENDING|SUCCESS(FUL)?|BOOKED|PAID|RESERVED|APPROVED|ACTIVE|NUMBER|CODE|REFERENCE|DETAILS|SUMMARY)$/;

function plausible(code: string, labelled: boolean): boolean {
  if (!/^[A-Z0-9-]+$/.test(code) || code.replace(/-/g, '').length < 4) return false;
  // Codes carry a digit or a dash ("TB-7KQ2XM", "RMY-TCNH-ZQVL"); a shouted word is not one. An
  // all-letter code (an airline PNR such as "FXXVHM") counts only right after its label's colon.
  if (/[\d-]/.test(code)) return true;
  return labelled && code.length >= 5 && code.length <= 12 && !STATUS_WORDS.test(code);
}

export function confirmationCode(s: Snapshot, cardFieldShown: boolean): string | null {
  const r = schemaReservation(s);
  if (r) {
    for (const k of ['reservationNumber', 'confirmationNumber', 'reservationId', 'bookingNumber', 'orderNumber']) {
      const v = r[k];
      if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 60);
    }
  }
  // A page still asking for the card code, or not saying it is done, confirms nothing.
  if (cardFieldShown) return null;
  if (!PAGE_SAYS_DONE.test(`${s.title} ${s.headings.join(' ')}`)) return null;
  let lettersOnly: string | null = null;
  for (const m of s.text.matchAll(NAMED)) {
    const code = m[2]!;
    if (plausible(code, false)) return code;
    lettersOnly ??= plausible(code, /[:#]\s*$/.test(m[0].slice(0, m[0].length - code.length))) ? code : null;
  }
  return lettersOnly;
}
