/**
 * Starts several things a test needs at once (services, browsers, sites), as Promise.all would. If
 * any of them fails to start, those that did are closed before the failure is thrown: a before()
 * hook that fails midway assigns none of them, so its after() cannot close them, and a service left
 * listening keeps the test file's process alive forever (the runner waits for it; CI hangs).
 */
export async function startedTogether<T extends readonly unknown[] | []>(starts: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled: Array<PromiseSettledResult<unknown>> = await Promise.allSettled(starts as readonly unknown[]);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(settled.map(async (s) => {
      const started = s.status === 'fulfilled' ? (s.value as { close?: () => unknown } | null) : null;
      if (typeof started?.close === 'function') await Promise.resolve(started.close()).catch(() => {});
    }));
    throw failed.reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
