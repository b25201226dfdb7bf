import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { FastifyReply } from 'fastify';
import { randomSecret } from '../security/secrets.ts';

// Rendering of the handoff, watch and bookings pages. Eta escapes every <%= %>; nothing is printed
// raw but the layout's rendered body. Each page gets a fresh CSP nonce: the only scripts that run
// are this origin's own files carrying it. Pages are never framed, cached, or sent as a Referer
// (their URLs carry tokens).

const eta = new Eta({ views: join(import.meta.dirname, 'views'), cache: true, autoEscape: true, useWith: false });

export const HANDOFF_STYLESHEET_PATH = '/assets/handoff.css';
export const HANDOFF_STYLESHEET = readFileSync(join(import.meta.dirname, 'static', 'handoff.css'));
export const HANDOFF_SCRIPT_PATH = '/assets/handoff.js';
export const HANDOFF_SCRIPT = readFileSync(join(import.meta.dirname, 'static', 'handoff.js'));
export const BOOKINGS_SCRIPT_PATH = '/assets/bookings.js';
export const BOOKINGS_SCRIPT = readFileSync(join(import.meta.dirname, 'static', 'bookings.js'));
/** The live view's client (src/pages/static/live-view.js): draws the frames and relays the person's input. */
export const LIVE_VIEW_SCRIPT = readFileSync(join(import.meta.dirname, 'static', 'live-view.js'));

export interface RenderOptions {
  status?: number;
  /** The service's own origin (http://host:port): WebSocket connections go there and nowhere else. */
  origin: string;
}

export function pageSecurityHeaders(reply: FastifyReply, origin: string, nonce: string): void {
  const socketOrigin = origin.replace(/^http/, 'ws');
  reply
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self'; connect-src 'self' ${socketOrigin}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/** Renders views/<view>.eta (which sets the handoff layout) and sends it. */
export function sendView(reply: FastifyReply, view: string, data: Record<string, unknown>, options: RenderOptions): FastifyReply {
  const nonce = randomSecret(16);
  pageSecurityHeaders(reply, options.origin, nonce);
  const html = eta.render(`./${view}`, { nonce, stylesheet: HANDOFF_STYLESHEET_PATH, scripts: [], ...data });
  return reply.code(options.status ?? 200).type('text/html; charset=utf-8').send(html);
}

/** A piece of a page (one booking), for the page's script to swap in. */
export function renderFragment(view: string, data: Record<string, unknown>): string {
  return eta.render(`./${view}`, data);
}

/** A page saying, in plain words, why there is nothing here. */
export function sendNotice(reply: FastifyReply, status: number, title: string, message: string, options: RenderOptions & { link?: { href: string; text: string } }): FastifyReply {
  return sendView(reply, 'handoff-notice', { title, message, link: options.link ?? null }, { ...options, status });
}
