import type { FastifyInstance } from 'fastify';
import { createProfile, deleteProfile, getProfile, listProfiles } from '../../jobs/profiles.ts';
import { parseProfile } from '../../jobs/schemas.ts';
import type { Services } from '../../services.ts';
import { ApiError } from './errors.ts';
import { principalOf } from './auth.ts';
import { presentProfile } from './present.ts';
import { resource } from './routes.ts';

function profileIdOf(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError(404, 'profile_not_found', `no profile ${raw}`);
  return id;
}

export function profileRoutes(app: FastifyInstance, services: Services): void {
  resource(app, '/profiles', {
    POST: async (request, reply) => {
      const parsed = parseProfile(request.body);
      if (!parsed.ok) throw new ApiError(400, 'invalid_request', 'the profile failed validation; see details', parsed.issues);
      const stored = await createProfile(services.db, principalOf(request).organizationName, parsed.value);
      reply.code(201).header('location', `/api/v1/profiles/${stored.id}`);
      return presentProfile(stored);
    },
    GET: async (request) => {
      const profiles = await listProfiles(services.db, principalOf(request).organizationName);
      return { count: profiles.length, profiles: profiles.map(presentProfile) };
    },
  });
  resource(app, '/profiles/:profileId', {
    GET: async (request) => {
      const { profileId } = request.params as { profileId: string };
      const stored = await getProfile(services.db, principalOf(request).organizationName, profileIdOf(profileId));
      if (!stored) throw new ApiError(404, 'profile_not_found', `no profile ${profileId}`);
      return presentProfile(stored);
    },
    DELETE: async (request, reply) => {
      const { profileId } = request.params as { profileId: string };
      const deleted = await deleteProfile(services.db, principalOf(request).organizationName, profileIdOf(profileId));
      if (!deleted) throw new ApiError(404, 'profile_not_found', `no profile ${profileId}`);
      return reply.code(204).send();
    },
  });
}
