import type { FastifyReply, FastifyRequest } from 'fastify';
import { csrfToken } from '../../identity/index.ts';
import { sendPage } from '../../pages/render.ts';
import { operatorFor } from './gate.ts';

// Every console page: the shared layout at full width, the console's navigation, who is signed
// in, and the session's CSRF token for its forms.

export const SECTIONS = [
  { id: 'home', href: '/operator', label: 'Overview' },
  { id: 'keys', href: '/operator/keys', label: 'API keys' },
  { id: 'providers', href: '/operator/providers', label: 'Providers' },
  { id: 'webhooks', href: '/operator/webhooks', label: 'Webhooks' },
  { id: 'clients', href: '/operator/clients', label: 'OAuth clients' },
  { id: 'jobs', href: '/operator/jobs', label: 'Jobs' },
  { id: 'audit', href: '/operator/audit', label: 'Audit' },
] as const;

export type Section = (typeof SECTIONS)[number]['id'];

export function sendOperatorPage(request: FastifyRequest, reply: FastifyReply, section: Section, view: string, data: Record<string, unknown>, status = 200): FastifyReply {
  const operator = operatorFor(request);
  return sendPage(
    reply,
    view,
    { ...data, user: { email: operator.email }, csrf: csrfToken(request), sections: SECTIONS, section, wide: true },
    { status },
  );
}

/** A time as the console shows it: to the minute, UTC. */
export function when(iso: string | null): string | null {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : null;
}
