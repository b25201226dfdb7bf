import { schemaReservation } from './held.ts';
import type { Snapshot } from './snapshot.ts';

// The booking confirmation, recognised after the person pays: schema.org Reservation data
// (reservationNumber, confirmationNumber, reservationId) where the page publishes it, else the code
// the page names in words ("Confirmation number: TB-7KQ2XM", "Your booking reference is …").

const NAMED = /\b(confirmation|reservation|booking|order|reference|ref|pnr)\b(?:\s+(?:number|no\.?|code|reference|ref|id|#))?(?:\s*\([A-Za-z]+\))?\s*(?:is|:|#|-)?\s*([A-Za-z0-9][A-Za-z0-9-]{3,24})\b/gi;
const PAGE_SAYS_DONE = /\b(confirmed|confirmation|booked|thank you|thanks|all set|success|complete[d]?|you'?re going|have a great)\b/i;

function plausible(code: string): boolean {
  // Codes are upper case, and carry a digit or a dash ("TB-7KQ2XM", "RMY-TCNH-ZQVL"); a shouted word is not one.
  return /^[A-Z0-9-]+$/.test(code) && /[\d-]/.test(code) && code.replace(/-/g, '').length >= 4;
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
  for (const m of s.text.matchAll(NAMED)) {
    const code = m[2]!;
    if (plausible(code)) return code;
  }
  return null;
}
