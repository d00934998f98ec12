/** Randomness is an input: a function returning a float in [0, 1). */
export type Rng = () => number;

/**
 * A small deterministic generator (mulberry32) for tests, demos and reproducible jitter.
 * @example const rng = seededRng(42); rng(); // always the same sequence for seed 42
 */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
