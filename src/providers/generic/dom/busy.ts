import { setTimeout as sleep } from 'node:timers/promises';
import type { DriverPage } from '../../../driver/page.ts';
import { snapshot, type Snapshot } from './snapshot.ts';

// A page that says it is still at work ("Searching…" in a status region, "Cargando…"): its answer
// has not come yet, however quiet the page is meanwhile (a script may wait before it asks its
// server, a slow server may take seconds). Read as it is, it would be a page with nothing to choose.

/** A status or alert that only says the page is working, in the booking sites' languages. */
const WORKING = [
  // "Searching…", "Cargando...": a word of work at the start, an ellipsis at the end.
  /^(searching|loading|checking|finding|looking for|fetching|updating|buscando|cargando|comprobando|caricamento|ricerca|cerco|suche|lade|wird geladen|chargement|recherche|carregando|a carregar|pesquisando|procurando)\b[^.!?]{0,60}(…|\.\.\.)$/iu,
  // "Please wait", "Bitte warten": a request to wait, at the start.
  /^(please wait|one moment|just a moment|un momento|espere|attendere|un attimo|bitte warten|einen moment|veuillez patienter|un instant|aguarde|um momento)\b[^.!?]{0,60}[.…]*$/iu,
];
const SHORT = 80;

export function saysWorking(s: Snapshot): boolean {
  return s.alerts.some((a) => a.length <= SHORT && WORKING.some((w) => w.test(a.trim())));
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
