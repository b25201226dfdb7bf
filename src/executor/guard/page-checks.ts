// Layer 1's questions to a page, run inside it: written as modules in in-page/ (importing the shared
// card-field classifier, src/driver/card-fields.ts, so every layer agrees) and bundled, each with
// what it imports, into one function (scripts/build-page-scripts.ts, in-page.generated.ts).

export { armControl, armPress, classifyAt, classifyChoice, classifyControl, classifyField, covered, fillFields, firstCardField, focusFirstCardField, quiet } from './in-page.generated.ts';
