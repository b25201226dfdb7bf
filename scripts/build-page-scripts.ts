// Bundles the code that runs inside pages (as Playwright bundles its injected scripts): each entry, a
// module whose default export is a function, with everything it imports, into one self-contained
// function source, written to a generated module that the service imports (no build at run time,
// no esbuild in production). `npm run build:page` writes them; test/generic/in-page-bundle.test.ts
// rebuilds them in memory and fails when the committed ones differ.
//
//   node scripts/build-page-scripts.ts          write the generated modules
//   node scripts/build-page-scripts.ts --check  exit 1 when one is not up to date

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Bundle {
  /** The generated module, from the repository's root. */
  out: string;
  /** What it is for, in its header. */
  about: string;
  /** Exported name → entry module (from the root), default-exporting the function run in the page. */
  entries: Record<string, { entry: string; about: string; arg: string; result: string }>;
  /** Imports the exported types need. */
  imports: string[];
  /** Entries sent as a script (an init script), not as a function: called at once, with no argument. */
  scripts?: string[];
}

export const BUNDLES: Bundle[] = [
  {
    out: 'src/providers/generic/dom/in-page.generated.ts',
    about: 'the generic driver\'s page reading (src/providers/generic/dom/in-page/)',
    imports: ["import type { Snapshot } from './snapshot.ts';", "import type { CalendarReading } from './calendar.ts';", "import type { FrameFacts } from './in-page/frame-facts.ts';"],
    entries: {
      READ_PAGE: { entry: 'src/providers/generic/dom/in-page/read-page.ts', about: 'The whole page, read-only: the snapshot, as JSON text (or, on a page that changed how JSON is written, as it is).', arg: 'undefined', result: 'Snapshot | string' },
      READ_CALENDARS: { entry: 'src/providers/generic/dom/in-page/read-calendars.ts', about: 'The month grids a date picker shows, read-only.', arg: 'undefined', result: 'CalendarReading[]' },
      FRAME_FACTS: { entry: 'src/providers/generic/dom/in-page/frame-facts.ts', about: 'A frame\'s card-code field, CAPTCHA, text and buttons.', arg: 'undefined', result: 'FrameFacts' },
    },
  },
  {
    out: 'src/executor/guard/in-page.generated.ts',
    about: 'the payment guard\'s in-page checks and scripts (src/executor/guard/in-page/)',
    imports: ["import type { PressQuiet, PressWatch } from './in-page/arm-press.ts';", "import type { ArmedControl } from './in-page/arm-control.ts';"],
    scripts: ['BLOCKER_SCRIPT', 'LEARNER_SCRIPT', 'CHANGE_LOG_SCRIPT', 'OPEN_IN_TAB_SCRIPT'],
    entries: {
      classifyField: { entry: 'src/executor/guard/in-page/classify-field.ts', about: 'A card-code field\'s short name, or null.', arg: 'Element', result: 'string | null' },
      classifyChoice: { entry: 'src/executor/guard/in-page/classify-choice.ts', about: 'A card-code field, or a radio button or checkbox read as one: its short name, or null.', arg: 'Element', result: 'string | null' },
      classifyControl: { entry: 'src/executor/guard/in-page/classify-control.ts', about: 'A control\'s label, its form\'s card-code field, whether its form holds a frame.', arg: 'Element', result: '{ label: string; field: string | null; frame: boolean }' },
      firstCardField: { entry: 'src/executor/guard/in-page/first-card-field.ts', about: 'The first card-code field the document shows, and whether it is parsed.', arg: 'void', result: '{ field: string | null; parsed: boolean }' },
      armPress: { entry: 'src/executor/guard/in-page/arm-press.ts', about: 'A press watched at the click: what stopped it.', arg: 'Element', result: 'PressWatch' },
      armControl: { entry: 'src/executor/guard/in-page/arm-control.ts', about: 'armPress and classifyControl in one question, on a control named by a CSS selector (null: ask through Playwright).', arg: 'string', result: 'ArmedControl | null' },
      classifyAt: { entry: 'src/executor/guard/in-page/classify-at.ts', about: 'classifyField or classifyChoice of a field named by a CSS selector (found false: ask through Playwright).', arg: '{ selector: string; tick: boolean }', result: '{ found: boolean; field: string | null }' },
      fillFields: { entry: 'src/executor/guard/in-page/fill-fields.ts', about: 'A whole form filled, unless a target is a card-code field.', arg: 'Array<[string, string]>', result: '{ missing?: string; card?: string; rejected?: string }' },
      focusFirstCardField: { entry: 'src/executor/guard/in-page/focus-first-card-field.ts', about: 'The first card-code field focused.', arg: 'void', result: 'boolean' },
      covered: { entry: 'src/executor/guard/in-page/covered.ts', about: 'Whether something else is over a control now (null: cannot say).', arg: 'string', result: 'boolean | null' },
      declarativeForm: { entry: 'src/executor/guard/in-page/declarative-form.ts', about: 'A declarative WebMCP tool\'s form: its card-code field, frame, autosubmit and submit label.', arg: 'string', result: '{ field: string | null; frame: boolean; autosubmit: boolean; submitLabel: string } | null' },
      BLOCKER_SCRIPT: { entry: 'src/executor/guard/in-page/blocker.ts', about: 'Layer 2, an init script of every frame.', arg: 'undefined', result: 'void' },
      quiet: { entry: 'src/executor/guard/in-page/quiet.ts', about: 'Resolves once the page is quiet, counted from a moment ago.', arg: 'PressQuiet', result: 'Promise<boolean>' },
      CHANGE_LOG_SCRIPT: { entry: 'src/executor/guard/in-page/change-log.ts', about: 'When the document last changed, an init script of every frame (read by quiet).', arg: 'undefined', result: 'void' },
      OPEN_IN_TAB_SCRIPT: { entry: 'src/executor/guard/in-page/open-in-tab.ts', about: 'A window the page\'s script opens opens in this tab, an init script of the top frame.', arg: 'undefined', result: 'void' },
      LEARNER_SCRIPT: { entry: 'src/executor/guard/in-page/learner.ts', about: 'Layer 3\'s learner of card-code field names, an init script of every frame.', arg: 'undefined', result: 'void' },
    },
  },
];

const GLOBAL = '__pageEntry';

/** One entry bundled into a function expression: `function (arg) { …bundle…; return entry(arg); }`. */
export async function bundleEntry(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: GLOBAL,
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text.trim();
  return `function (arg) {\n${code}\nreturn ${GLOBAL}.default(arg);\n}`;
}

/** The generated module's text. */
export async function generate(bundle: Bundle): Promise<string> {
  const lines = [
    '// Generated by scripts/build-page-scripts.ts (`npm run build:page`) from ' + bundle.about + ': do not edit.',
    '// Each constant is one self-contained function, bundled with all it imports, run only in the page.',
    "import { pageFunction } from '" + path.relative(path.dirname(path.join(root, bundle.out)), path.join(root, 'src/driver/page-function.ts')).replace(/^(?!\.)/, './') + "';",
    ...bundle.imports,
    '',
  ];
  for (const [name, { entry, about, arg, result }] of Object.entries(bundle.entries)) {
    const source = await bundleEntry(entry);
    lines.push(`/** ${about} (${entry}) */`);
    if (bundle.scripts?.includes(name)) lines.push(`export const ${name}: string = ${JSON.stringify(`(${source})();`)};`, '');
    else lines.push(`export const ${name} = pageFunction<${arg}, ${result}>(${JSON.stringify(source)});`, '');
  }
  return lines.join('\n');
}

if (import.meta.main) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const bundle of BUNDLES) {
    const text = await generate(bundle);
    const file = path.join(root, bundle.out);
    let old = '';
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      // not written yet
    }
    if (old === text) continue;
    stale++;
    if (check) console.error(`${bundle.out} is not up to date: npm run build:page`);
    else {
      writeFileSync(file, text);
      console.log(`wrote ${bundle.out}`);
    }
  }
  if (check && stale) process.exit(1);
}
