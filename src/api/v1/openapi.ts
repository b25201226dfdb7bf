import { z } from 'zod';
import type { FastifySchema } from 'fastify';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { VERSION } from '../../version.ts';
import {
  activityParams,
  clientMetadataSchema,
  consentSchema,
  executionJobRequestSchema,
  flightParams,
  hotelParams,
  paramsByScenario,
  profileSchema,
  restaurantParams,
} from '../../jobs/schemas.ts';
import { SCENARIOS } from '../../jobs/types.ts';
import type { QueryRange } from '../../jobs/clamp.ts';
import { API_ERRORS, AUTH_ERROR_CODES, type ApiErrorCode } from './error-codes.ts';
import {
  createdJobSchema,
  errorSchema,
  executionJobSchema,
  jobAuditSchema,
  profileListSchema,
  providerMetricsSchema,
  storedProfileSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from './response-schemas.ts';
import { webhookEndpointRequestSchema } from '../../webhooks/endpoints.ts';

// The OpenAPI 3.1 document of /api/v1. Each route carries its own operation (routes.ts `resource`
// turns an OperationDoc into the route's `schema`) and @fastify/swagger collects them from the
// routes; this module gives the document its frame: info, servers, the security scheme, and the
// components, generated from the zod schemas the handlers validate with (jobs/schemas.ts) and the
// reply schemas present.ts is typed against (response-schemas.ts). The reference page renders it.
//
// The route schemas are documentation only: the handlers validate their input with zod and answer
// in the API's error envelope, and replies are serialized as without a schema (index.ts sets both
// compilers for the API's routes).

type JsonSchema = Record<string, unknown>;

/** The booking request as documented: `request` spelled out per scenario (the handler validates
 *  `params` against the scenario's schema in a second step, with these same schemas). */
const executionJobRequestDoc = executionJobRequestSchema.extend({
  request: z
    .discriminatedUnion(
      'scenario',
      SCENARIOS.map((scenario) => z.object({ scenario: z.literal(scenario), params: paramsByScenario[scenario] }).strict()) as unknown as [
        z.ZodObject,
        ...z.ZodObject[],
      ],
    )
    .describe('What to book: the scenario and its params'),
});

/** The named components: request schemas (as the service accepts them) and reply schemas (as it sends them). */
const requests = z.registry<{ id: string }>();
requests.add(executionJobRequestDoc, { id: 'ExecutionJobRequest' });
requests.add(restaurantParams, { id: 'RestaurantParams' });
requests.add(hotelParams, { id: 'HotelParams' });
requests.add(flightParams, { id: 'FlightParams' });
requests.add(activityParams, { id: 'ActivityParams' });
requests.add(profileSchema, { id: 'Profile' });
requests.add(consentSchema, { id: 'Consent' });
requests.add(clientMetadataSchema, { id: 'ClientMetadata' });
requests.add(webhookEndpointRequestSchema, { id: 'WebhookEndpointRequest' });
const replies = z.registry<{ id: string }>();
replies.add(createdJobSchema, { id: 'CreatedJob' });
replies.add(executionJobSchema, { id: 'ExecutionJob' });
replies.add(jobAuditSchema, { id: 'JobAudit' });
replies.add(providerMetricsSchema, { id: 'ProviderMetrics' });
replies.add(storedProfileSchema, { id: 'StoredProfile' });
replies.add(profileListSchema, { id: 'ProfileList' });
replies.add(webhookEndpointSchema, { id: 'WebhookEndpoint' });
replies.add(webhookEndpointWithSecretSchema, { id: 'WebhookEndpointWithSecret' });
replies.add(webhookEndpointListSchema, { id: 'WebhookEndpointList' });
replies.add(webhookDeliverySchema, { id: 'WebhookDelivery' });
replies.add(webhookDeliveryListSchema, { id: 'WebhookDeliveryList' });
replies.add(errorSchema, { id: 'Error' });

/** The schema the handler validates with, documented as another: the booking request's params per scenario. */
const documentedAs = new Map<z.ZodType, z.ZodType>([[executionJobRequestSchema, executionJobRequestDoc]]);

const componentUri = (id: string) => `#/components/schemas/${id}`;

/** A reference to the component of a zod schema (one of the registries above). */
function componentRef(schema: z.ZodType): { $ref: string } {
  const documented = documentedAs.get(schema) ?? schema;
  const id = requests.get(documented)?.id ?? replies.get(documented)?.id;
  if (!id) throw new Error('this schema is not a component of the OpenAPI document: add it to a registry in openapi.ts');
  return { $ref: componentUri(id) };
}

export function components(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [registry, io] of [[requests, 'input'], [replies, 'output']] as const) {
    const { schemas } = z.toJSONSchema(registry, { uri: componentUri, io, unrepresentable: 'any' }) as { schemas: Record<string, JsonSchema> };
    for (const [id, schema] of Object.entries(schemas)) {
      const { $schema: _s, $id: _i, ...rest } = schema;
      out[id] = rest;
    }
  }
  // Rules that span fields, which JSON Schema can state: exactly one of profile and profileId.
  out.ExecutionJobRequest = {
    ...out.ExecutionJobRequest,
    oneOf: [{ required: ['profile'] }, { required: ['profileId'] }],
    description:
      'A booking request. Give exactly one of `profile` (inline) and `profileId` (a stored profile of your organisation). ' +
      'For flights the profile must also carry `dob`, `passport_number` and `passport_country`. Dates are real calendar dates, ' +
      'not in the past (a date is past when it is before today everywhere on Earth, UTC−12); hotel `checkout` is after `checkin`; ' +
      'flight `return_date` is not before `date` (a same-day return is allowed) and `dest` differs from `origin`.',
  };
  return out;
}

export const TAGS = {
  'Execution jobs': 'Create and poll booking jobs',
  'Provider metrics': 'How providers fare, from the audit log',
  Profiles: "Your organisation's stored traveller profiles (profileId)",
  Webhooks: "Your organisation's webhook endpoints: signed job events, delivery log, replay",
  Reference: 'This documentation',
} as const;

/** A path or query parameter: what it is, and its JSON Schema. */
export interface ParameterDoc {
  description: string;
  schema: JsonSchema;
  /** Query parameters only; path parameters are always required. */
  required?: boolean;
}

/** One operation of the API, as its route documents it (routes.ts `resource`). */
export interface OperationDoc {
  operationId: string;
  tag: keyof typeof TAGS;
  summary: string;
  description: string;
  /** The path's parameters, named as in the route's URL. */
  params?: Record<string, ParameterDoc>;
  query?: Record<string, ParameterDoc>;
  /** The zod schema the handler validates the JSON body with. */
  body?: z.ZodType;
  success: {
    status: number;
    description: string;
    /** The zod schema of the JSON reply (response-schemas.ts); none for an empty reply or another content type. */
    schema?: z.ZodType;
    contentType?: string;
    /** Response headers: name → what it carries. */
    headers?: Record<string, string>;
  };
  /** The error codes particular to this operation; authentication, rate limits and internal errors are added. */
  errors: readonly ApiErrorCode[];
}

/** The error codes every operation with a body can return. */
export const BODY_ERRORS: readonly ApiErrorCode[] = ['invalid_json', 'invalid_request', 'payload_too_large', 'unsupported_media_type'];

/** A clamped query number, as jobs/clamp.ts reads it. */
export function clampedParameter(range: QueryRange, what: string): ParameterDoc {
  return {
    description: `${what} Default ${range.default}; clamped to ${range.min}..${range.max}; a value that is not a number means the default; a fraction is truncated.`,
    schema: { type: 'integer', default: range.default, minimum: range.min, maximum: range.max },
  };
}

/** The error codes an operation can return, authentication and unexpected failures included. */
function errorCodesOf(doc: OperationDoc, isPublic: boolean): ApiErrorCode[] {
  return isPublic ? [...doc.errors] : [...doc.errors, ...AUTH_ERROR_CODES, 'rate_limited', 'internal_error'];
}

/** The error responses, by status: each code's `when` in the description and as an example. */
function errorResponses(codes: readonly ApiErrorCode[]): Record<string, JsonSchema> {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = API_ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${API_ERRORS[code].when}`).join('\n\n'),
      ...(status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', type: 'integer' } } } : {}),
      ...(status === 401 ? { headers: { 'WWW-Authenticate': { description: 'Bearer realm="concierge-api"', type: 'string' } } } : {}),
      content: {
        'application/json': {
          schema: componentRef(errorSchema),
          examples: Object.fromEntries(list.map((code) => [code, { value: { error: { code, message: API_ERRORS[code].when } } }])),
        },
      },
    };
  }
  return out;
}

function parametersSchema(parameters: Record<string, ParameterDoc>, allRequired: boolean): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(parameters).map(([name, p]) => [name, { ...p.schema, description: p.description }])),
    required: Object.entries(parameters)
      .filter(([, p]) => allRequired || p.required === true)
      .map(([name]) => name),
  };
}

/** The route's Fastify `schema`, in the form @fastify/swagger reads: the operation as the document shows it. */
export function operationSchema(doc: OperationDoc, isPublic: boolean): FastifySchema {
  const { success } = doc;
  const reply: JsonSchema = { description: success.description };
  if (success.headers) reply.headers = Object.fromEntries(Object.entries(success.headers).map(([name, description]) => [name, { type: 'string', description }]));
  if (success.schema) Object.assign(reply, componentRef(success.schema));
  else if (success.contentType) reply.content = { [success.contentType]: { schema: {} } };
  else reply.type = 'null';
  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    description: doc.description,
    ...(isPublic ? { security: [] } : {}),
    ...(doc.params ? { params: parametersSchema(doc.params, true) } : {}),
    ...(doc.query ? { querystring: parametersSchema(doc.query, false) } : {}),
    ...(doc.body ? { body: componentRef(doc.body) } : {}),
    response: { [String(success.status)]: reply, ...errorResponses(errorCodesOf(doc, isPublic)) },
  };
}

/**
 * @fastify/swagger's options for the API mounted at `prefix`: the document's frame, and the
 * operations taken from the routes (paths relative to the server URL, path parameters first).
 */
export function openApiOptions(baseUrl: string, prefix: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Concierge Execution API',
        version: VERSION,
        description:
          'Book restaurants, hotels, flights and activities for the people you serve. A booking is a job: create it, then poll it. ' +
          'The service never submits a card security code: a job that reaches the payment step pauses with status `paused_payment` ' +
          'and `handoffUrl`, where the person completes the charge.\n\n' +
          'Every call except this document and the reference page needs `Authorization: Bearer <API_KEY>`; keys are minted by the ' +
          'operator. Every error is `{"error": {"code", "message", "details?"}}` with a stable snake_case code; unknown routes are 404 ' +
          '`not_found`, a known path with another method is 405 `method_not_allowed` (with Allow), bodies over 1 MiB are 413, bodies ' +
          'that are not application/json are 415. Version 1 is alpha: breaking changes are possible until it leaves alpha. Learn the ' +
          "outcome by webhooks, or poll until `completed`/`error` or the hold's end: `paused_payment` is not final. " +
          'The per-day rate limit stored with a key is not enforced.',
      },
      servers: [{ url: `${baseUrl}${prefix}` }],
      security: [{ apiKey: [] }],
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'svk_(live|test)_…',
            description: 'An API key minted by the operator (`concierge keys create`), sent as `Authorization: Bearer svk_…`.',
          },
        },
      },
    },
    // zod writes `const`; OpenAPI 3.1 has it, so it stays as written.
    convertConstToEnum: false,
    stripBasePath: false,
    transform: ({ schema, url }) => ({ schema, url: url.startsWith(prefix) ? url.slice(prefix.length) : url }),
    transformObject: (documentObject) => {
      const document = (documentObject as { openapiObject: Record<string, unknown> }).openapiObject;
      const paths = (document.paths ?? {}) as Record<string, Record<string, { parameters?: Array<{ in: string }> }>>;
      for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
        operation.parameters?.sort((a, b) => Number(a.in !== 'path') - Number(b.in !== 'path'));
      }
      // The components as zod wrote them, added here rather than handed to @fastify/swagger, whose
      // conversion (for OpenAPI 3.0) drops the description beside a `$ref`, which 3.1 allows.
      (document.components as Record<string, unknown>).schemas = components();
      document['x-error-codes'] = Object.fromEntries(Object.entries(API_ERRORS).map(([code, e]) => [code, { status: e.status, when: e.when }]));
      return document;
    },
  };
}
