import { setTimeout as sleep } from 'node:timers/promises';
import type { DriverPage } from '../../../driver/page.ts';
import { snapshot, type Snapshot } from './snapshot.ts';
import { either } from './words.ts';

// A page that says it is still at work ("Searching…" in a status region, "Cargando…"): its answer
// has not come yet, however quiet the page is meanwhile (a script may wait before it asks its
// server, a slow server may take seconds). Read as it is, it would be a page with nothing to choose.

/** A status or alert that only says the page is working, in the booking sites' languages. */
const WORKING = either(
  /^(searching|loading|please wait|one moment|just a moment|checking( availability)?|finding|looking for|fetching|updating)\b[^.!?]{0,60}(…|\.\.\.)?$/,
  ['buscando', 'cargando', 'un momento', 'espere', 'caricamento', 'ricerca in corso', 'attendere', 'un attimo', 'suche läuft', 'wird geladen', 'bitte warten', 'chargement', 'recherche en cours', 'veuillez patienter', 'un instant', 'carregando', 'a carregar', 'pesquisando', 'aguarde'],
);
const SHORT = 80;

export function saysWorking(s: Snapshot): boolean {
  return s.alerts.some((a) => a.length <= SHORT && WORKING.test(a.trim()));
}

/** The page once it no longer says it is working (read again every 100 ms), within `limitMs`; as it is then. */
export async function untilAnswered(page: DriverPage, s: Snapshot, limitMs = 10_000): Promise<Snapshot> {
  const deadline = Date.now() + limitMs;
  while (saysWorking(s) && Date.now() < deadline) {
    await sleep(100);
    await page.settle();
    try {
      s = await snapshot(page, true);
    } catch {
      // The answer came as a new document while the page was being read: read that one next.
    }
  }
  return s;
}
