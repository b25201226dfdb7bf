/** A numeric query parameter: the value taken when none is given, and the range it is clamped to. */
export interface QueryRange {
  default: number;
  min: number;
  max: number;
}

/**
 * A query value as the contract reads it: clamped to its range, a fraction truncated, and anything
 * that is not one finite number (absent, empty, text, a repeated parameter) is the default.
 */
export function clampToRange(raw: unknown, range: QueryRange): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n)) return range.default;
  return Math.min(range.max, Math.max(range.min, Math.trunc(n)));
}
