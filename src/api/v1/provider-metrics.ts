import type { FastifyInstance } from 'fastify';
import { clampToRange } from '../../jobs/clamp.ts';
import { getProviderMetrics, METRICS_DAYS } from '../../jobs/provider-metrics.ts';
import type { Services } from '../../services.ts';
import { ApiError } from './errors.ts';
import { clampedParameter } from './openapi.ts';
import { providerMetricsSchema } from './response-schemas.ts';
import { idAfter, resource } from './routes.ts';

const missing = () => new ApiError(400, 'missing_provider_id', 'the provider id is missing from the path: /api/v1/metrics/providers/{providerId}');

export function providerMetricsRoutes(app: FastifyInstance, services: Services): void {
  resource(app, '/metrics/providers', {
    // There is no provider list: a GET here is a metrics read without the provider id.
    GET: {
      hidden: true,
      handler: async () => {
        throw missing();
      },
    },
  });
  resource(app, '/metrics/providers/:providerId', {
    GET: {
      doc: {
        operationId: 'getProviderMetrics',
        tag: 'Provider metrics',
        summary: "A provider's success metrics",
        description:
          'Computed from the audit log of all organisations over the last `timeRangeDays` days. Every provider attempt ends with one ' +
          'event carrying `providerOutcome`: `accepted` (the provider held the booking for payment or confirmed it), `failed` (the ' +
          'attempt ended without a booking: no availability, a login wall, a CAPTCHA, an outage, a broken page, retries exhausted) or ' +
          '`manual_override` (a held booking the person cancelled or let expire at the handoff). totalAttempts = accepted + failed; ' +
          'successRate = accepted / totalAttempts (0 when there are no attempts); manual overrides are counted apart. With no matching ' +
          'events the reply is still 200 with zeros. Require totalAttempts of at least 5 before trusting successRate.',
        params: { providerId: { description: 'The provider id, as in consent.allowedProviders', schema: { type: 'string' } } },
        query: { timeRangeDays: clampedParameter(METRICS_DAYS, 'The window in days.') },
        success: { status: 200, description: 'The metrics', schema: providerMetricsSchema },
        errors: ['missing_provider_id'],
      },
      handler: async (request) => {
        const providerId = idAfter(request, '/metrics/providers');
        if (providerId.trim() === '') throw missing();
        const days = clampToRange((request.query as Record<string, unknown>).timeRangeDays, METRICS_DAYS);
        return getProviderMetrics(services.db, providerId, days);
      },
    },
  });
}
