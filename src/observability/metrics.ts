import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { countJobsByStatus } from '../jobs/status-counts.ts';
import { readsOwnTables } from '../db/health.ts';
import type { Config } from '../config.ts';
import { digestsEqual, sha256 } from '../security/secrets.ts';
import type { Services } from '../services.ts';

// Prometheus text at /metrics, in two kinds of series. Per node: what this process saw or holds
// (HTTP requests and latencies, Node's process_* and nodejs_* figures); sum them across nodes.
// Cluster-wide, named concierge_cluster_*: jobs by status and the booking queue's depth, read from
// the shared database at each scrape, so every node reports the same value and a sum over nodes
// would count each job once per node; aggregate them with max (docs/deploy.md, Metrics).
export async function observability(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests this node answered, by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency on this node, by route',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Gauge({
    name: 'concierge_cluster_jobs',
    help: 'Booking jobs by status (every status, 0 included); cluster-wide, the same on every node: aggregate with max, not sum',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      // With the database down the scrape still answers (request metrics matter most then); the
      // database-backed series are simply absent, which alerting on /readyz makes visible.
      const counts = await countJobsByStatus(services.db).catch(() => null);
      if (!counts) return;
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
  new Gauge({
    name: 'concierge_cluster_queue_depth',
    help: 'Booking queue entries waiting (queued) and being worked (active); cluster-wide, the same on every node: aggregate with max, not sum',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      const depth = await services.queue.depth().catch(() => null);
      if (!depth) return;
      this.set({ state: 'queued' }, depth.queued);
      this.set({ state: 'active' }, depth.active);
    },
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: ids in paths would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    // Draining (SIGTERM): a load balancer stops sending new work here; held bookings are still served.
    if (services.lifecycle?.draining) return reply.code(503).send({ status: 'draining', reason: 'the node is shutting down' });
    try {
      await readsOwnTables(services.db);
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database unreachable' });
    }
  });
  const access = metricsAccess(services.config);
  app.get('/metrics', async (request, reply) => {
    if (access.kind === 'off') return reply.code(404).send({ error: 'not_found', message: 'not found' });
    if (access.kind === 'token' && !access.allows(request.headers.authorization)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send({ error: 'unauthorized', message: 'send Authorization: Bearer <METRICS_TOKEN>' });
    }
    reply.type(registry.contentType);
    return registry.metrics();
  });
}

/**
 * Who may read /metrics: with METRICS_TOKEN, whoever sends it as a bearer token (compared as
 * digests, in constant time); without one, anyone in development and test, nobody in production.
 */
export function metricsAccess(config: Pick<Config, 'METRICS_TOKEN' | 'NODE_ENV'>): { kind: 'public' } | { kind: 'off' } | { kind: 'token'; allows(authorization: string | undefined): boolean } {
  const token = config.METRICS_TOKEN;
  if (!token) return config.NODE_ENV === 'production' ? { kind: 'off' } : { kind: 'public' };
  const expected = sha256(token);
  return {
    kind: 'token',
    allows: (authorization) => {
      const presented = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
      return digestsEqual(sha256(presented ?? ''), expected) && presented !== undefined;
    },
  };
}
