/**
 * A small seeded PRNG (mulberry32) for the variants: the same seed gives the same
 * variant, on every machine, with no dependency. Seeded by the sandbox's own FNV-1a.
 */
import { hash } from '../engine/inventory.ts';

export interface Rng {
  /** In [0, 1). */
  next(): number;
  chance(p: number): boolean;
  pick<T>(list: readonly T[]): T;
  shuffle<T>(list: readonly T[]): T[];
}

/** A generator for one purpose: the run's seed and what it is for ("tavola:wrappers"). */
export function rng(seed: number, purpose: string): Rng {
  let a = hash(`${seed}:${purpose}`);
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)]!,
    shuffle: (list) => {
      const out = [...list];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}
