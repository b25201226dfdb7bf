import { ProviderFailure, oneLine } from '../../../driver/failures.ts';
import type { JsonValue, PageTool } from '../../../driver/webmcp.ts';
import type { Availability, Offer, SearchRequest, Traveller } from '../../../driver/types.ts';
import { DECLINE, type Answer, type StepContext, type Strategy } from '../strategy.ts';
import { nextPage, nothingAvailable, offersIn, readResult, scalars, type ToolOffer, type ToolReading } from './results.ts';
import { chooseTool, type Purpose } from './tools.ts';

// The generic driver's first strategy: when the page registers WebMCP tools, search, hold an option
// and give the guest details by calling them (chosen from their names, descriptions and input
// schemas), rather than by reading the page. Every call goes through the payment guard
// (GuardedPage.callTool); what a tool returns is read as data (results.ts). The review, payment and
// confirmation pages are read by the next strategy, as a person sees them: a tool's word about what
// is held or paid is not taken for the page's.

export const WEBMCP = 'webmcp';

interface Notes {
  offers: ToolOffer[];
  /** Identifiers earlier tools returned (a hold id…), passed to the next tools. */
  carried: Map<string, string | number>;
  search?: ToolReading;
  /** A page of the same site a tool said the booking goes on at. */
  next?: string;
  /** An option chosen whose hold tool also takes the guest: held at the guest step, with the guest. */
  holdWithGuest?: ToolOffer;
}

/**
 * Stands in for the traveller when asking whether a hold tool could be filled once the guest is known
 * (never sent: a tool is only called with the real traveller, at the guest step).
 */
const SOMEONE: Traveller = { givenName: 'A', familyName: 'B', email: 'a@b.invalid', phone: '+10000000000', birthDate: '2000-01-01', passportNumber: 'X', passportCountry: 'GB' };

function notes(ctx: StepContext): Notes {
  let n = ctx.state.notes.get(WEBMCP) as Notes | undefined;
  if (!n) {
    n = { offers: [], carried: new Map() };
    ctx.state.notes.set(WEBMCP, n);
  }
  return n;
}

/** Calls the tool for a step (through the guard) and reads its result; null when the page has none that fits. */
async function callFor(ctx: StepContext, purpose: Purpose, tools: PageTool[], known: Parameters<typeof chooseTool>[2]): Promise<{ tool: PageTool; reading: ToolReading } | null> {
  const chosen = chooseTool(tools, purpose, known);
  if (!chosen) return null;
  const from = ctx.page.url();
  const result: JsonValue | undefined = await ctx.page.callTool(chosen.tool.name, chosen.input);
  await settleAfterTool(ctx, { generation: ctx.page.generation, at: Date.now(), went: ctx.page.url() !== from, readOnly: chosen.tool.annotations?.readOnly === true });
  const reading = readResult(result);
  const n = notes(ctx);
  for (const [k, v] of scalars(reading.data)) n.carried.set(k, v);
  if (reading.isError) {
    throw new ProviderFailure('error', `${ctx.provider.name}'s WebMCP tool '${oneLine(chosen.tool.name, 60)}' failed${reading.text ? `: "${oneLine(reading.text, 160)}"` : ''}`);
  }
  const next = nextPage(reading.data, ctx.page.url());
  if (next) n.next = next;
  return { tool: chosen.tool, reading };
}

/**
 * An imperative tool answers before the page it opens has loaded (a navigation would lose its
 * answer): it submits its form or assigns `location` a moment later. The page is let settle, and a
 * new document that starts within a short grace after the answer is waited for as well, so that the
 * next step reads the page the tool went on to, not the one it left. No grace when the tool is
 * already on another page (a declarative tool's form was sent), a document came while settling, or
 * the tool says it changes nothing (read-only).
 */
async function settleAfterTool(ctx: StepContext, answered: { generation: number; at: number; went: boolean; readOnly: boolean }): Promise<void> {
  await ctx.page.settle();
  // Nothing acts on the page meanwhile: a new generation is a new document.
  if (answered.went || answered.readOnly || ctx.page.generation !== answered.generation) return;
  const deadline = answered.at + TOOL_NAVIGATION_GRACE_MS;
  while (ctx.page.generation === answered.generation && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (ctx.page.generation !== answered.generation) await ctx.page.settle();
}

/**
 * How long after a tool's answer a navigation it scheduled ("a moment later") is still taken as its
 * doing. A site's 300 ms timer fired more than 750 ms after the answer on a loaded two-core machine
 * (CI, 2026-12-04); only a tool that neither navigated nor says it is read-only waits this long.
 */
const TOOL_NAVIGATION_GRACE_MS = 1_500;

async function search(ctx: StepContext, request: SearchRequest): Answer<void> {
  if (!/^https?:/.test(ctx.page.url())) await ctx.page.goto(ctx.provider.startUrl);
  const tools = await ctx.page.tools();
  if (tools.length === 0) return DECLINE;
  const n = notes(ctx);
  const called = await callFor(ctx, 'search', tools, { request, carried: n.carried });
  if (!called) return DECLINE;
  n.search = called.reading;
  n.offers = offersIn(called.reading.data);
  return undefined;
}

async function availability(ctx: StepContext): Answer<Availability> {
  const n = notes(ctx);
  if (n.offers.length) return { kind: 'offers', offers: n.offers.map((o) => o.offer) };
  const none = n.search ? nothingAvailable(n.search) : null;
  if (none) return { kind: 'none', message: none };
  // The search tool answered with no options to read (a form tool that loaded the results page):
  // the page is read as it shows them.
  return DECLINE;
}

async function choose(ctx: StepContext, offer: Offer): Answer<void> {
  const n = notes(ctx);
  const mine = n.offers.find((o) => o.offer.key === offer.key);
  if (ctx.state.offeredBy !== WEBMCP || !mine || !ctx.state.request) return DECLINE;
  const tools = await ctx.page.tools();
  const offerKnown = { request: ctx.state.request, carried: n.carried, offer: { idKey: mine.idKey, id: mine.id } };
  const called = await callFor(ctx, 'hold', tools, offerKnown);
  if (called) return undefined;
  // A tool that holds the option and takes the guest in one call (slot id, full name, email, phone):
  // the choice is kept, and the tool called at the guest step, when the guest is known.
  if (chooseTool(tools, 'hold', { ...offerKnown, traveller: SOMEONE })) {
    n.holdWithGuest = mine;
    return undefined;
  }
  // The options came from a tool: only a tool can choose one of them.
  throw new ProviderFailure('unexpected_page', `${ctx.provider.name}'s WebMCP tools listed options but none of them holds one (tools: ${tools.map((t) => t.name).slice(0, 10).join(', ')})`);
}

async function guestDetails(ctx: StepContext, traveller: Traveller, request: SearchRequest): Answer<void> {
  const n = notes(ctx);
  if (n.holdWithGuest) {
    const mine = n.holdWithGuest;
    n.holdWithGuest = undefined;
    const held = await callFor(ctx, 'hold', await ctx.page.tools(), { request, traveller, carried: n.carried, offer: { idKey: mine.idKey, id: mine.id } });
    if (!held) throw new ProviderFailure('unexpected_page', `${ctx.provider.name}'s WebMCP tool that holds an option with the guest's details no longer takes them`);
    const next = n.next;
    n.next = undefined;
    if (next && next !== ctx.page.url()) await ctx.page.goto(next);
    return undefined;
  }
  let tools = await ctx.page.tools();
  if (!tools.length && n.next) {
    await ctx.page.goto(n.next);
    n.next = undefined;
    tools = await ctx.page.tools();
  }
  const called = await callFor(ctx, 'guest', tools, { request, traveller, carried: n.carried });
  if (!called) return DECLINE;
  // On to the review or payment page the tool named, unless the tool already went there itself.
  const next = n.next;
  n.next = undefined;
  if (next && next !== ctx.page.url()) await ctx.page.goto(next);
  return undefined;
}

export const webmcpStrategy: Strategy = { name: WEBMCP, search, availability, choose, guestDetails };
