import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toJob } from '../jobs/service.ts';
import { JOB_ID_PATTERN, type Job } from '../jobs/types.ts';
import type { Services } from '../services.ts';
import { heldTabGrant, runningTabGrant } from './live-tab-grants.ts';
import { liveViewSocketRoute } from './live-view-routes.ts';
import { screenOf } from './handoff-routes.ts';
import { loadJob } from '../jobs/job-reads.ts';

// The routes of a node's internal port (src/cluster/internal-server.ts), which other nodes relay a
// person's page to: the held tab in control, a running tab to watch, and the person's cancel. The
// caller is another node (every call is signed: the port answers nothing else), which has already
// applied the person's access rule (the handoff token, the signed-in owner, the watch link); here
// only the tab is looked for.

type JobParams = { Params: { jobId: string } };

async function jobOf(services: Services, request: FastifyRequest): Promise<Job | null> {
  const { jobId } = request.params as { jobId: string };
  if (!JOB_ID_PATTERN.test(jobId)) return null;
  const row = await loadJob(services.db, jobId.toLowerCase());
  return row ? toJob(row) : null;
}

export async function internalRoutes(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const tabs = services.tabs;

  liveViewSocketRoute(app, '/internal/holds/:jobId/live', {
    allowedOrigin: null,
    authorize: async (request) => {
      const job = await jobOf(services, request);
      const page = job?.status === 'paused_payment' ? tabs.sessions.heldPage(job.jobId) : null;
      if (!job || !page) return { refused: 410, message: 'not held here' };
      return heldTabGrant(tabs, job, page, screenOf(request), request.raw.socket);
    },
  });

  liveViewSocketRoute(app, '/internal/runs/:jobId/live', {
    allowedOrigin: null,
    authorize: async (request) => {
      const job = await jobOf(services, request);
      const page = job?.status === 'running' ? tabs.sessions.runningPage(job.jobId) : null;
      if (!job || !page) return { refused: 410, message: 'not running here' };
      return runningTabGrant(tabs, job.jobId, page);
    },
  });

  // The person's cancel (or the API client's), for a tab held here: 404 when it is not (the caller then ends the row itself).
  for (const [path, by] of [['cancel', 'person'], ['cancel-by-client', 'client']] as const) {
    app.post<JobParams>(`/internal/holds/:jobId/${path}`, async (request, reply) => {
      const { jobId } = request.params;
      if (!JOB_ID_PATTERN.test(jobId) || !tabs.sessions.heldPage(jobId)) return reply.code(404).send({ result: null });
      return { result: await tabs.sessions.cancel(jobId, by) };
    });
  }
}
