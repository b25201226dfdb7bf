/**
 * The development corpus: eight provider websites in the styles real booking
 * sites use, unlike the built-in eight and unlike each other (see
 * sandbox/README.md, "Corpus"). No driver may know them: they are what the
 * generic driver is developed against.
 */
import type { HostHandler } from '../engine/server.ts';
import type { SandboxState } from '../engine/state.ts';
import type { Scenario } from '../engine/types.ts';
import { newStore, type SiteCtx } from './core.ts';
import type { CorpusId } from './ids.ts';
import { captchaFrame, htmlRes, type Req, type Res } from './kit.ts';
import * as aerolux from './sites/aerolux.ts';
import * as flyhop from './sites/flyhop.ts';
import * as innkeep from './sites/innkeep.ts';
import * as mesa from './sites/mesa.ts';
import * as staybird from './sites/staybird.ts';
import * as tavola from './sites/tavola.ts';
import * as tickety from './sites/tickety.ts';
import * as wanderly from './sites/wanderly.ts';
import { transformResponse, type Variant } from '../variants/index.ts';

export { CORPUS_IDS, type CorpusId } from './ids.ts';

export interface CorpusSite {
  id: CorpusId;
  scenario: Scenario;
  name: string;
  /** Path of the start page on `sandbox.origin(id)` (which may redirect to another subdomain). */
  startPath: string;
  /** What the site is made of, in the words of the corpus brief. */
  styles: readonly string[];
}

type SiteHandler = (req: Req, ctx: SiteCtx, sub: string | null) => Res | Promise<Res>;

const SITES: ReadonlyArray<CorpusSite & { handle: SiteHandler }> = [
  { id: 'tavola', scenario: 'restaurant', name: 'Tavola', startPath: '/', handle: tavola.handle,
    styles: ['server-rendered multi-page', 'GET search form', 'custom date picker (popover month grid)', 'time slots as buttons', 'reCAPTCHA iframe', 'schema.org FoodEstablishmentReservation'] },
  { id: 'mesa', scenario: 'restaurant', name: 'Mesa', startPath: '/', handle: mesa.handle,
    styles: ['single-page app over a JSON API', 'quantity stepper (guests)', 'slots as cards', 'modal dialog (guest details)', 'client-side validation errors', 'Turnstile iframe', 'visible booking reference only'] },
  { id: 'staybird', scenario: 'hotel', name: 'Staybird', startPath: '/', handle: staybird.handle,
    styles: ['cookie wall (Reject all / Accept all)', 'occupancy stepper in a popover', 'results as cards with schema.org microdata (Offer)', 'server-rendered multi-page', 'schema.org LodgingReservation'] },
  { id: 'innkeep', scenario: 'hotel', name: 'Innkeep', startPath: '/', handle: innkeep.handle,
    styles: ['WebMCP tools (declarative <form toolname> and imperative registerTool)', 'results as a table', 'server-rendered multi-page', 'hCaptcha iframe', 'visible confirmation number only'] },
  { id: 'aerolux', scenario: 'flight', name: 'Aerolux', startPath: '/', handle: aerolux.handle,
    styles: ['redirects between subdomains (aerolux → www. → book. → pay.)', 'results as a table', 'per-passenger passport details, birth date as three selects', 'card field in an iframe on another origin (pay.)', 'schema.org FlightReservation'] },
  { id: 'flyhop', scenario: 'flight', name: 'FlyHop', startPath: '/', handle: flyhop.handle,
    styles: ['client-side validation errors', 'traveller stepper', 'results as a radio list', 'modal dialog (fare upsell)', 'schema.org FlightReservation in microdata'] },
  { id: 'tickety', scenario: 'activity', name: 'Tickety', startPath: '/', handle: tickety.handle,
    styles: ['ticket types as a radio list', 'quantity stepper (tickets)', 'hold countdown', '"verify you are human" text challenge', 'schema.org EventReservation'] },
  { id: 'wanderly', scenario: 'activity', name: 'Wanderly', startPath: '/', handle: wanderly.handle,
    styles: ['custom date picker (inline list of day buttons)', 'participants stepper', 'options as cards', 'cookie banner (Necessary only / Accept all)', 'single full-name field', 'visible booking reference only'] },
];

export const CORPUS: readonly CorpusSite[] = Object.freeze(SITES.map(({ handle: _h, ...meta }) => Object.freeze({ ...meta, styles: Object.freeze([...meta.styles]) })));

/** Host handlers for every corpus site: `<id>` and `*.<id>` (its subdomains), under `variant` when given (sandbox/variants). */
export function corpusHandlers(state: SandboxState, variant?: Variant): Map<string, HostHandler> {
  const out = new Map<string, HostHandler>();
  for (const site of SITES) {
    const store = newStore();
    state.corpusBookings.set(site.id, store.bookings);
    const ctx: SiteCtx = {
      id: site.id,
      scenario: site.scenario,
      state,
      store,
      origin: (sub) => `http://${sub ? `${sub}.` : ''}${site.id}.localhost:${state.port}`,
    };
    const handler = (req: Req): Res | Promise<Res> => {
      const sub = /^([a-z0-9-]+)\.[a-z0-9-]+\.localhost/.exec(req.host)?.[1] ?? null;
      const challenge = /^\/__challenge\/([a-z]+)$/.exec(req.path);
      if (challenge && req.method === 'GET') return captchaFrame(challenge[1] ?? '') ?? htmlRes(404, 'Not found');
      if (!variant) return site.handle(req, ctx, sub);
      return Promise.resolve(site.handle(req, ctx, sub)).then((res) => transformResponse(res, variant, site.id, req.path));
    };
    out.set(site.id, handler);
    out.set(`*.${site.id}`, handler);
  }
  return out;
}
