/**
 * Concierge sandbox: realistic travel-provider websites served from one
 * loopback HTTP server, one browser origin per provider
 * (`http://<id>.localhost:<port>`). See sandbox/README.md for the catalogue.
 */
import type { AddressInfo } from 'node:net';
import { corpusHandlers, type CorpusId } from './corpus/index.ts';
import type { Variant } from './variants/index.ts';
import { adversarialHandler, ADVERSARIAL_CARD_FIELDS, paymentsHandler, PAYMENTS_CARD_FIELDS, WEBSOCKET_PATHS } from './adversarial/index.ts';
import { handleProvider } from './engine/flow.ts';
import { createSandboxServer, type HostHandler } from './engine/server.ts';
import { newState } from './engine/state.ts';
import type { ProviderDef } from './engine/provider.ts';
import type { ProviderId, Scenario } from './engine/types.ts';
import { dinenow } from './providers/dinenow.ts';
import { eventgo } from './providers/eventgo.ts';
import { jetdeck } from './providers/jetdeck.ts';
import { roomly } from './providers/roomly.ts';
import { skyfare } from './providers/skyfare.ts';
import { staysearch } from './providers/staysearch.ts';
import { tablebook } from './providers/tablebook.ts';
import { tixhub } from './providers/tixhub.ts';

export type { ProviderId, Scenario } from './engine/types.ts';
export { CORPUS, CORPUS_IDS, type CorpusId, type CorpusSite } from './corpus/index.ts';
export { planFor as variantPlan, VARIANT_KINDS, type Variant, type VariantKind } from './variants/index.ts';

const DEFS: readonly ProviderDef[] = [tablebook, dinenow, staysearch, roomly, skyfare, jetdeck, tixhub, eventgo];

export const PROVIDERS: ReadonlyArray<{ id: ProviderId; scenario: Scenario; name: string; firstChoice: boolean }> = Object.freeze(
  DEFS.map((d) => Object.freeze({ id: d.id, scenario: d.scenario, name: d.name, firstChoice: d.firstChoice })),
);

export interface Sandbox {
  port: number;
  origin(id: ProviderId | CorpusId | 'adversarial' | 'payments'): string; // `http://<id>.localhost:<port>`
  /** Every card-code value that reached the server, from any page/provider, in arrival order. */
  cardCodesReceived(): Array<{ host: string; path: string; field: string; at: Date }>; // never store the value itself, just that a non-empty one arrived
  /** Completed bookings (confirmation issued). */
  confirmations(): Array<{ provider: ProviderId | CorpusId; code: string; paidWithCard: boolean }>;
  /** The passengers each site holds a booking for (held or paid), by the details the site accepted: for tests of several travellers. */
  passengersHeld(): Array<{ provider: ProviderId | CorpusId; passengers: Array<{ givenName: string; familyName: string; birthDate: string; passportNumber: string; passportCountry: string }> }>;
  /** Flaky searches: when the first one failed (502), and when the same search came again (null: not yet). */
  flakySearches(): Array<{ provider: ProviderId; venue: string; failedAt: Date; retriedAt: Date | null }>;
  /** Slow Pay answers charged from now on are held (beyond their 3 s) until the returned function is called. */
  holdSlowPayAnswers(): () => void;
  close(): Promise<void>;
}

/**
 * `variant`: the corpus sites' markup rewritten from a seed (sandbox/variants); the built-in eight
 * keep theirs, which their scripted drivers depend on.
 */
export async function startSandbox(opts: { port?: number; host?: string; holdSeconds?: number; variant?: Variant } = {}): Promise<Sandbox> {
  const holdSeconds = opts.holdSeconds ?? 900;
  if (!(holdSeconds > 0)) throw new RangeError('holdSeconds must be positive');
  const state = newState(holdSeconds);
  state.extraCardFields.set('adversarial', new Set(ADVERSARIAL_CARD_FIELDS));
  state.extraCardFields.set('payments', new Set(PAYMENTS_CARD_FIELDS));

  const handlers = new Map<string, HostHandler>();
  for (const def of DEFS) handlers.set(def.id, (req) => handleProvider(def, req, state));
  handlers.set('adversarial', (req) => adversarialHandler(req, state.port));
  handlers.set('payments', (req) => paymentsHandler(req, state.port));
  for (const [label, handler] of corpusHandlers(state, opts.variant)) handlers.set(label, handler);

  const { server, close } = createSandboxServer(state, handlers, WEBSOCKET_PATHS);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  state.port = port;

  return {
    port,
    origin: (id) => `http://${id}.localhost:${port}`,
    cardCodesReceived: () => state.receipts.map((r) => ({ ...r, at: new Date(r.at) })),
    confirmations: () => state.confirmations.map((c) => ({ ...c })),
    passengersHeld: () => {
      const out: ReturnType<Sandbox['passengersHeld']> = [];
      for (const [key, session] of state.sessions) {
        for (const b of session.bookings.values()) if (b.guest?.passengers.length) out.push({ provider: key.split(':')[0] as ProviderId, passengers: b.guest.passengers.map((p) => ({ ...p })) });
      }
      for (const [provider, bookings] of state.corpusBookings) {
        for (const b of bookings.values()) if (b.guest?.passengers.length) out.push({ provider, passengers: b.guest.passengers.map((p) => ({ ...p })) });
      }
      return out;
    },
    flakySearches: () => [...state.flaky.values()].map((f) => ({ ...f, failedAt: new Date(f.failedAt), retriedAt: f.retriedAt === null ? null : new Date(f.retriedAt) })),
    holdSlowPayAnswers: () => {
      let release!: () => void;
      state.slowPayHeld = new Promise<void>((resolve) => (release = resolve));
      return () => {
        state.slowPayHeld = null;
        release();
      };
    },
    close,
  };
}
