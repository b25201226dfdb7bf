import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import vm from 'node:vm';
import { BUNDLES, bundleEntry, generate } from '../../scripts/build-page-scripts.ts';
import { READ_PAGE } from '../../src/providers/generic/dom/in-page.generated.ts';
import { READERS } from '../../src/providers/generic/dom/in-page/readers/index.ts';

// The code that runs inside pages is written as modules and bundled by esbuild into generated,
// committed modules (scripts/build-page-scripts.ts). The committed output is the build's, never
// edited or stale; and each bundle is whole: loaded in an empty realm (no Node, no DOM, no outer
// scope), it defines its function, and reaches for nothing but the page's own globals when run.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BROWSER_GLOBALS = new Set(['document', 'window', 'location', 'getComputedStyle', 'HTMLInputElement', 'HTMLFormElement', 'Element', 'MutationObserver', 'CSS', 'performance', 'setTimeout']);

describe('the in-page bundles', () => {
  for (const bundle of BUNDLES) {
    test(`${bundle.out} is what npm run build:page writes (rebuilt here: run it after changing the in-page code)`, async () => {
      assert.equal(readFileSync(path.join(root, bundle.out), 'utf8'), await generate(bundle));
    });

    for (const [name, { entry, arg }] of Object.entries(bundle.entries)) {
      test(`${name} (${entry}) loads in an empty realm and needs only the page's globals`, async () => {
        const source = await bundleEntry(entry);
        assert.doesNotMatch(source, /\brequire\(|\bprocess\.|\bimport\s*\(|^\s*import\s/m, 'nothing of Node, no module loading');
        const realm = vm.createContext(Object.create(null));
        const fn = vm.runInContext(`(${source})`, realm);
        assert.equal(typeof fn, 'function');
        // The bundle's modules, loaded: every import resolved inside it, nothing taken from outside.
        const loaded = source.replace(/return __pageEntry\.default\(arg\);\n\}$/, 'return typeof __pageEntry.default;\n}');
        assert.notEqual(loaded, source);
        assert.equal(vm.runInContext(`(${loaded})`, realm)(), 'function');
        // Run, it reaches for the page (here there is none): a browser global, never a Node one.
        // (A function of an element is not run: there is no element to hand it.)
        if (arg === 'Element') return;
        try {
          fn(arg === 'undefined' || arg === 'void' ? undefined : arg === 'string' ? 'a tool' : [['#a', 'b']]);
          assert.fail('ran without a page');
        } catch (error) {
          const missing = /^(\w+) is not defined$/.exec((error as Error).message)?.[1];
          assert.ok(missing && BROWSER_GLOBALS.has(missing), `stopped at ${(error as Error).message}`);
        }
      });
    }
  }

  test('the page reading is composed from the registered readers, one per source', async () => {
    assert.deepEqual(Object.keys(READERS), ['text', 'forms', 'dialogs', 'fields', 'boxes', 'lists', 'steppers', 'dateParts', 'sliders', 'radioGroups', 'groupSteppers', 'controls', 'frames', 'structuredData', 'definitions', 'tables', 'pairs']);
    const source = String(READ_PAGE);
    for (const file of ['readers/index.ts', 'readers/fields.ts', 'readers/boxes.ts', 'readers/sliders.ts', 'readers/radio-groups.ts', 'readers/tables.ts', 'readers/structured-data.ts', 'lib.ts']) assert.ok(source.includes(`// src/providers/generic/dom/in-page/${file}`), file);
    assert.throws(() => READ_PAGE(undefined), /runs in the page/);
  });
});
