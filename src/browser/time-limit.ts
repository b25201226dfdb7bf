// Browser calls (Playwright's page questions, CDP sends) have no time limit of their own: a hung or
// starved tab would hang whoever awaits them. One way to bound them, whatever a late answer means
// to the caller (a failure of the attempt, an unresponsive page, or simply "no answer").

/** `work`'s result, or what `late()` gives (or throws) once `ms` pass first. The timer never outlives the race. */
export function timeLimit<T, L>(work: Promise<T>, ms: number, late: () => L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
