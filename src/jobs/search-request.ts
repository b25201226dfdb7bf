// What a job asks a provider to find, from its validated params, and the same in a few words: each
// scenario's spec says it (src/scenarios/). Kept at this path for its callers, the generic driver's
// among them.
export { describeRequest, headcountOf, searchRequestOf } from '../scenarios/index.ts';
