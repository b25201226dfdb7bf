import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { jobFilterOf, listJobsOverview } from '../../jobs/overview.ts';
import { countJobsByStatus } from '../../jobs/status-counts.ts';
import { JOB_STATUSES } from '../../jobs/types.ts';
import { knownOrganizations } from '../../operator/organizations.ts';
import { listProviders } from '../../providers/store.ts';
import { builtInsExist } from '../../providers/registry.ts';
import { sendOperatorPage, when } from './page.ts';

// The console's front page (jobs by status) and the jobs overview: newest first, filtered by
// status, organisation and provider, a bounded page at a time.

type JobsQuery = { Querystring: { status?: string; org?: string; provider?: string; after?: string } };

export function jobRoutes(app: FastifyInstance, services: Services): void {
  const { db, config } = services;

  app.get('/operator', async (request, reply) => {
    const counts = await countJobsByStatus(db);
    return sendOperatorPage(request, reply, 'home', 'operator-home', { counts: JOB_STATUSES.map((status) => ({ status, count: counts[status], href: `/operator/jobs?status=${status}` })) });
  });

  app.get('/operator/jobs', async (request: FastifyRequest<JobsQuery>, reply) => {
    const filter = jobFilterOf(request.query);
    const after = typeof request.query.after === 'string' ? request.query.after : null;
    const [page, organizations, providers] = await Promise.all([listJobsOverview(db, filter, after), knownOrganizations(db), listProviders(db, { builtIns: builtInsExist(config.NODE_ENV) })]);
    const kept = new URLSearchParams({
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.organizationName ? { org: filter.organizationName } : {}),
      ...(filter.providerId ? { provider: filter.providerId } : {}),
    });
    if (page.nextCursor) kept.set('after', page.nextCursor);
    return sendOperatorPage(request, reply, 'jobs', 'operator-jobs', {
      filter: { status: filter.status ?? '', org: filter.organizationName ?? '', provider: filter.providerId ?? '' },
      statuses: JOB_STATUSES,
      organizations,
      providers: providers.map((p) => p.id),
      paged: after !== null,
      jobs: page.jobs.map((j) => ({ ...j, createdAt: when(j.createdAt), updatedAt: when(j.updatedAt) })),
      nextHref: page.nextCursor ? `/operator/jobs?${kept.toString()}` : null,
    });
  });
}
