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
