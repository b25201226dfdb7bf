/** A timer this late ran on a starved renderer: page timers due before it may not have had their turn. */
const LATE_MS = 10;
/** How many times a late answer is asked again before it is taken (a renderer starved throughout). */
const LATE_RECHECKS = 3;

/**
 * Resolves (true) once `left()`, the time of quiet still to wait, is up and `ready()` says the
 * document is parsed, or once `capMs` have passed. Asked only from the page's timer queue, never at
 * once: the driver's question can arrive while the page's own timers are overdue (a starved renderer
 * runs the driver's message first), and a page's next animation step must have its turn before it is
 * found quiet. For the same reason a quiet found by a timer that ran late is asked once more, after
 * whatever was overdue beside it.
 */
export function untilQuiet(left: () => number, ready: () => boolean, capMs: number): Promise<boolean> {
  const begun = performance.now();
  let due = begun;
  let rechecks = 0;
  return new Promise<boolean>((resolve) => {
    const tick = () => {
      const at = performance.now();
      const wait = left();
      if (at - begun >= capMs) return resolve(true);
      const late = at - due > LATE_MS && rechecks < LATE_RECHECKS;
      if (wait <= 0 && ready() && !late) return resolve(true);
      if (wait <= 0 && late) rechecks++;
      const delay = wait <= 0 ? 0 : Math.max(5, wait);
      due = at + delay;
      setTimeout(tick, delay);
    };
    setTimeout(tick, 0);
  });
}
