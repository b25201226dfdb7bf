// In-page code is written as ordinary modules (src/providers/generic/dom/in-page/, src/executor/guard/in-page/)
// and bundled by esbuild into one self-contained function source each (scripts/build-page-scripts.ts,
// `npm run build:page`), committed as *.generated.ts: nothing is bundled or compiled at run time.

/**
 * A bundled page function as Playwright takes one (`evaluate(fn, arg)` sends `String(fn)` to the
 * page): a function whose source is the bundle. It runs only in the page; called in Node, it throws.
 */
export function pageFunction<A, R>(source: string): (arg: A) => R {
  const fn = (): never => {
    throw new Error('a page function runs in the page (page.evaluate), not in Node');
  };
  fn.toString = () => source;
  return fn as unknown as (arg: A) => R;
}
