import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { FastifyReply } from 'fastify';

// Server-rendered pages. Eta escapes every <%= %> by default; nothing is ever printed raw. Every
// page is answered with a strict Content-Security-Policy (no scripts at all, styles from this
// origin only), is never framed, never cached, and sends no Referer (URLs here carry request ids).

const eta = new Eta({ views: join(import.meta.dirname, 'views'), cache: true, autoEscape: true, useWith: false });

export const STYLESHEET = readFileSync(join(import.meta.dirname, 'static', 'site.css'), 'utf8');
export const STYLESHEET_PATH = '/assets/site.css';

export interface PageOptions {
  status?: number;
  /** Origins a form on the page may end up at: Chromium applies form-action to the redirects after a POST too. */
  formTargets?: string[];
}

export function securityHeaders(reply: FastifyReply, formTargets: string[] = []): void {
  const formAction = ["'self'", ...formTargets].join(' ');
  reply
    .header('content-security-policy', `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cross-origin-opener-policy', 'same-origin');
}

/** Renders views/<view>.eta inside the shared layout and sends it. */
export function sendPage(reply: FastifyReply, view: string, data: Record<string, unknown>, options: PageOptions = {}): FastifyReply {
  securityHeaders(reply, options.formTargets);
  const html = eta.render(`./${view}`, { stylesheet: STYLESHEET_PATH, ...data });
  return reply.code(options.status ?? 200).type('text/html; charset=utf-8').send(html);
}

/** A plain page explaining what went wrong, to a person (no redirect anywhere). */
export function sendErrorPage(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  return sendPage(reply, 'error', { title, message }, { status });
}
