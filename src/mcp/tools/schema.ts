import { z } from 'zod';
import type { JsonSchema } from './types.ts';

/**
 * The JSON Schema a tool advertises, from its zod schema: draft-07 (what the SDK itself emits and
 * its clients validate with), input side for arguments, output side for results. Computed once at
 * start, never per request.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'throw' }) as JsonSchema;
}
