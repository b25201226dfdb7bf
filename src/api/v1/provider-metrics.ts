import type { FastifyInstance } from 'fastify';
import { clampToRange } from '../../jobs/clamp.ts';
import { getProviderMetrics, METRICS_DAYS } from '../../jobs/provider-metrics.ts';
import type { Services } from '../../services.ts';
import { ApiError } from './errors.ts';
import { idAfter, resource } from './routes.ts';

const missing = () => new ApiError(400, 'missing_provider_id', 'the provider id is missing from the path: /api/v1/metrics/providers/{providerId}');

export function providerMetricsRoutes(app: FastifyInstance, services: Services): void {
  resource(app, '/metrics/providers', {
    GET: async () => {
      throw missing();
    },
  });
  resource(app, '/metrics/providers/:providerId', {
    GET: async (request) => {
      const providerId = idAfter(request, '/metrics/providers');
      if (providerId.trim() === '') throw missing();
      const days = clampToRange((request.query as Record<string, unknown>).timeRangeDays, METRICS_DAYS);
      return getProviderMetrics(services.db, providerId, days);
    },
  });
}
