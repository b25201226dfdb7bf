import type { FastifyInstance } from 'fastify';
import { createProfile, deleteProfile, getProfile, listProfiles } from '../../jobs/profiles.ts';
import { parseProfile, profileSchema } from '../../jobs/schemas.ts';
import type { Services } from '../../services.ts';
import { ApiError } from './errors.ts';
import { principalOf } from './auth.ts';
import { BODY_ERRORS, type ParameterDoc } from './openapi.ts';
import { presentProfile } from './present.ts';
import { profileListSchema, storedProfileSchema } from './response-schemas.ts';
import { resource } from './routes.ts';

const profileIdParam: Record<'profileId', ParameterDoc> = { profileId: { description: 'The stored profile id', schema: { type: 'integer', minimum: 1 } } };

function profileIdOf(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError(404, 'profile_not_found', `no profile ${raw}`);
  return id;
}

export function profileRoutes(app: FastifyInstance, services: Services): void {
  resource(app, '/profiles', {
    POST: {
      doc: {
        operationId: 'createProfile',
        tag: 'Profiles',
        summary: 'Store a traveller profile',
        description:
          "Stores a profile for your organisation's bookings, validated like an inline profile. Reference it with `profileId` in a " +
          'booking request; only keys of the same organisation can read, delete or use it.',
        body: profileSchema,
        success: { status: 201, description: 'Stored', schema: storedProfileSchema, headers: { Location: 'The profile URL' } },
        errors: BODY_ERRORS,
      },
      handler: async (request, reply) => {
        const parsed = parseProfile(request.body);
        if (!parsed.ok) throw new ApiError(400, 'invalid_request', 'the profile failed validation; see details', parsed.issues);
        const stored = await createProfile(services.db, principalOf(request).organizationName, parsed.value);
        reply.code(201).header('location', `/api/v1/profiles/${stored.id}`);
        return presentProfile(stored);
      },
    },
    GET: {
      doc: {
        operationId: 'listProfiles',
        tag: 'Profiles',
        summary: "List your organisation's profiles",
        description: 'Oldest first.',
        success: { status: 200, description: 'The profiles', schema: profileListSchema },
        errors: [],
      },
      handler: async (request) => {
        const profiles = await listProfiles(services.db, principalOf(request).organizationName);
        return { count: profiles.length, profiles: profiles.map(presentProfile) };
      },
    },
  });
  resource(app, '/profiles/:profileId', {
    GET: {
      doc: {
        operationId: 'getProfile',
        tag: 'Profiles',
        summary: 'Read a stored profile',
        description: "Another organisation's profile is 404, like a missing one.",
        params: profileIdParam,
        success: { status: 200, description: 'The profile', schema: storedProfileSchema },
        errors: ['profile_not_found'],
      },
      handler: async (request) => {
        const { profileId } = request.params as { profileId: string };
        const stored = await getProfile(services.db, principalOf(request).organizationName, profileIdOf(profileId));
        if (!stored) throw new ApiError(404, 'profile_not_found', `no profile ${profileId}`);
        return presentProfile(stored);
      },
    },
    DELETE: {
      doc: {
        operationId: 'deleteProfile',
        tag: 'Profiles',
        summary: 'Delete a stored profile',
        description:
          'The profile is deleted from the database. Jobs already created with it keep their copy until their traveller data is erased (JOB_PERSONAL_DATA_RETENTION_DAYS after they end).',
        params: profileIdParam,
        success: { status: 204, description: 'Deleted' },
        errors: ['profile_not_found'],
      },
      handler: async (request, reply) => {
        const { profileId } = request.params as { profileId: string };
        const deleted = await deleteProfile(services.db, principalOf(request).organizationName, profileIdOf(profileId));
        if (!deleted) throw new ApiError(404, 'profile_not_found', `no profile ${profileId}`);
        return reply.code(204).send();
      },
    },
  });
}
