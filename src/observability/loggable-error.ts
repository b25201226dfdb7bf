/**
 * What a log line may say about a failure: names, codes and messages down the cause chain. An
 * allow-list, because the extra fields errors carry leak what logs must not hold: a stack, and a
 * database error's `detail` (a failed insert's "Failing row contains (…)" quotes a traveller's
 * email, phone and passport), `where`, and the query text and parameters some drivers attach.
 * Plain objects (`{ message }`, as several call sites log) are read the same way.
 */
export function loggableError(error: unknown, depth = 0): Record<string, unknown> | string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { name, message, code, cause } = error as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
  return {
    ...(typeof name === 'string' ? { type: name } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof code === 'string' ? { code } : {}),
    ...(cause !== undefined && depth < 3 ? { cause: loggableError(cause, depth + 1) } : {}),
  };
}
