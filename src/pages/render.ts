import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { FastifyReply } from 'fastify';

// Server-rendered pages. Eta escapes every <%= %> by default; nothing is ever printed raw. Every
// page is answered with a strict Content-Security-Policy (no scripts but this origin's own static
// files where a page names them, styles from this origin only), is never framed, never cached, and
// sends no Referer (URLs here carry request ids).

const eta = new Eta({ views: join(import.meta.dirname, 'views'), cache: true, autoEscape: true, useWith: false });

export const STYLESHEET = readFileSync(join(import.meta.dirname, 'static', 'site.css'), 'utf8');
export const STYLESHEET_PATH = '/assets/site.css';
/** The consent page's script (src/pages/static/consent.js): Approve answers only once the page has settled. */
export const CONSENT_SCRIPT = readFileSync(join(import.meta.dirname, 'static', 'consent.js'));
export const CONSENT_SCRIPT_PATH = '/assets/consent.js';

export interface PageOptions {
  status?: number;
  /** Origins a form on the page may end up at: Chromium applies form-action to the redirects after a POST too. */
  formTargets?: string[];
  /** This origin's static scripts the page loads (paths); none by default. */
  scripts?: string[];
}

export function securityHeaders(reply: FastifyReply, formTargets: string[] = [], scripts = false): void {
  const formAction = ["'self'", ...formTargets].join(' ');
  const scriptSrc = scripts ? " script-src 'self';" : '';
  reply
    .header('content-security-policy', `default-src 'none';${scriptSrc} style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cross-origin-opener-policy', 'same-origin');
}

/** Serves one of the static files (src/pages/static): every page's stylesheet and scripts. */
export function sendAsset(reply: FastifyReply, type: 'css' | 'js', body: Buffer | string): FastifyReply {
  return reply
    .type(type === 'css' ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
    .header('cache-control', 'public, max-age=300')
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

/** Renders views/<view>.eta inside the shared layout and sends it. */
export function sendPage(reply: FastifyReply, view: string, data: Record<string, unknown>, options: PageOptions = {}): FastifyReply {
  const scripts = options.scripts ?? [];
  securityHeaders(reply, options.formTargets, scripts.length > 0);
  const html = eta.render(`./${view}`, { stylesheet: STYLESHEET_PATH, ...data, scripts });
  return reply.code(options.status ?? 200).type('text/html; charset=utf-8').send(html);
}

/** A plain page explaining what went wrong, to a person (no redirect anywhere). */
export function sendErrorPage(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  return sendPage(reply, 'error', { title, message }, { status });
}
