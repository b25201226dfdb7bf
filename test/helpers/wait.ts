import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` until it holds; fails naming `what` if it does not within `withinMs`. For what
 * another process or connection makes true asynchronously, in place of a fixed sleep: a sleep long
 * enough on a loaded machine wastes time everywhere else, and one too short flakes.
 */
export async function until(what: string, condition: () => boolean | Promise<boolean>, withinMs: number, everyMs = 20): Promise<void> {
  for (const deadline = Date.now() + withinMs; !(await condition()); await sleep(everyMs)) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
  }
}

/**
 * Waits, if need be, until at least `needMs` of the current wall-clock minute remain: per-minute
 * limits count in fixed minutes, and a test that counts to a limit must not see the window restart.
 */
export async function withinOneMinuteWindow(needMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** `request`'s result, failing (rather than hanging the test) when it takes longer than `withinMs`. */
export async function answered<T>(label: string, request: Promise<T>, withinMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${withinMs} ms`)), withinMs);
  });
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}
