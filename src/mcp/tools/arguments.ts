import { z } from 'zod';
import type { Issue } from '../../jobs/schemas.ts';

export const jobIdArgument = z
  .string({ error: 'jobId must be a string' })
  .trim()
  .min(1, 'jobId must not be empty')
  .max(100, 'jobId is too long')
  .describe('The jobId a book_* tool returned');

/** Parses a tool's arguments, reporting every problem with its field path. */
export function parseArguments<T extends z.ZodType>(schema: T, args: unknown): { ok: true; value: z.infer<T> } | { ok: false; issues: Issue[] } {
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(arguments)', message: i.message })) };
}
