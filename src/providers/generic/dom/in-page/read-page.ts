import type { Snapshot } from '../snapshot.ts';
import { pageContext } from './page.ts';
import { READERS } from './readers/index.ts';

// The snapshot's reading, done in the page: an entry of the in-page bundle (scripts/build-page-scripts.ts
// bundles it with what it imports into one function, in-page.generated.ts, sent whole to the page).

/** At most this many of each list the readers give together. */
const LIMITS: Partial<Record<keyof Snapshot, number>> = { pairs: 200 };

/**
 * The whole page, read-only: every registered reader's part, joined, as JSON text. A reading is
 * 30-60 kB: Playwright's own serialization of it (value by value, in the page's JavaScript) cost
 * 15-50 ms a reading more than the page's JSON.stringify does. A page that has changed how JSON is
 * written (a legacy library's Array.prototype.toJSON) gets the object as it is, serialized the slow way.
 */
export default function readPage(): Snapshot | string {
  const page = pageContext(document);
  const read: Record<string, unknown> = {};
  for (const reader of Object.values(READERS)) {
    for (const [key, value] of Object.entries(reader(page))) {
      const had = read[key];
      read[key] = Array.isArray(had) && Array.isArray(value) ? [...had, ...value] : value;
    }
  }
  for (const [key, limit] of Object.entries(LIMITS)) if (Array.isArray(read[key])) read[key] = read[key].slice(0, limit);
  const altered = [Object.prototype, Array.prototype, String.prototype].some((p) => 'toJSON' in p) || !/\[native code\]/.test(Function.prototype.toString.call(JSON.stringify));
  return altered ? (read as unknown as Snapshot) : JSON.stringify(read);
}
