/** Ids of the corpus sites; they never collide with the built-in eight (engine/types.ts ProviderId). */
export const CORPUS_IDS = ['tavola', 'mesa', 'staybird', 'innkeep', 'aerolux', 'flyhop', 'tickety', 'wanderly'] as const;
export type CorpusId = (typeof CORPUS_IDS)[number];
