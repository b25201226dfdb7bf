import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentUser, redirectToSignIn, sameOriginWithToken } from '../../identity/index.ts';
import { operatorOf, type Operator } from '../../operator/access.ts';
import { sendErrorPage } from '../../pages/render.ts';

// The one door to every console page, run before each handler of the console (a preHandler of its
// plugin, so no route can be added without it): signed in, listed in OPERATOR_EMAILS, and for a
// form (POST) the session's CSRF token from a page of this origin. A refused request changes
// nothing: the handler never runs.

declare module 'fastify' {
  interface FastifyRequest {
    /** The operator the gate let through (the console's requests only; null elsewhere). */
    operator: Operator | null;
  }
}

/** Decorates the console's requests with the operator the gate lets through (call once, in the console's plugin). */
export function decorateOperator(app: FastifyInstance): void {
  app.decorateRequest('operator', null);
}

/** The operator the gate let through for this request (only called from console handlers). */
export function operatorFor(request: FastifyRequest): Operator {
  const operator = request.operator;
  if (!operator) throw new Error('operatorFor called outside the operator console');
  return operator;
}

export function operatorGate(operatorEmails: readonly string[]) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const user = await currentUser(request);
    const reading = request.method === 'GET' || request.method === 'HEAD';
    if (!user) {
      // Like /bookings: a page is reached through sign-in; a form posted without a session is refused.
      if (reading) return redirectToSignIn(request, reply);
      return sendErrorPage(reply, 403, 'Not allowed', 'Sign in to the operator console first. Nothing was changed.');
    }
    const operator = operatorOf(operatorEmails, user);
    if (!operator) {
      return sendErrorPage(reply, 403, 'Operators only', 'The operator console is for the people who run this service. Your account is not on its list (OPERATOR_EMAILS); ask an operator if you need access.');
    }
    if (!reading && !sameOriginWithToken(request, (request.body as { csrf?: unknown } | undefined)?.csrf)) {
      return sendErrorPage(reply, 403, 'Not allowed', 'This form did not come from your own operator console page (its token is missing or wrong). Nothing was changed: reload the page and try again.');
    }
    request.operator = operator;
    return undefined;
  };
}
