/**
 * When a load run's requests are sent, and how long each prompt and answer is (docs/load.md):
 * seeded, so a run repeats with its seed. Times are server seconds from the start of a rate.
 */
import { normal, rng } from '#shared/random';
import type { Arrivals, LengthSpec } from '#shared/session/schema-load';

/** A gamma draw of shape k and scale 1 (Marsaglia and Tsang; k < 1 boosted from k + 1). */
function gamma(k: number, uniform: () => number): number {
  if (k < 1) return gamma(k + 1, uniform) * Math.pow(1 - uniform(), 1 / k);
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(uniform);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - uniform();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** The gap before the next arrival at `rate` requests per second, in seconds. */
export function gapSampler(arrivals: Arrivals, rate: number, seed: number): () => number {
  const mean = 1 / rate;
  const uniform = rng(seed);
  if (arrivals.kind === 'constant') return () => mean;
  if (arrivals.kind === 'poisson') return () => -Math.log(1 - uniform()) * mean;
  // Gamma gaps with coefficient of variation cv: shape 1/cv², scale mean·cv² (cv 1 is Poisson, above 1 bursty).
  const shape = 1 / (arrivals.cv * arrivals.cv);
  return () => gamma(shape, uniform) * mean * arrivals.cv * arrivals.cv;
}

/** Arrival times in [0, seconds): the first at 0, then the sampler's gaps. */
export function arrivalTimes(arrivals: Arrivals, rate: number, seconds: number, seed: number): number[] {
  const gap = gapSampler(arrivals, rate, seed);
  const out: number[] = [];
  for (let t = 0; t < seconds; t += gap()) out.push(t);
  return out;
}

/** A sampler of token lengths from a spec; every draw is a whole number of at least 1. */
export function lengthSampler(spec: LengthSpec, seed: number): () => number {
  const uniform = rng(seed);
  if (spec.kind === 'fixed') return () => spec.tokens;
  if (spec.kind === 'uniform') return () => spec.min + Math.floor(uniform() * (spec.max - spec.min + 1));
  return () => Math.max(1, Math.round(spec.mean + spec.sd * normal(uniform)));
}

/** Standard deviations above the mean at which a normal length is cut (so a request's length has a ceiling). */
const NORMAL_CUT_SD = 3;

/** The longest length a spec draws, for fitting prompts and outputs to the server (normal: cut at 3 sd). */
export function lengthCeiling(spec: LengthSpec): number {
  if (spec.kind === 'fixed') return spec.tokens;
  if (spec.kind === 'uniform') return spec.max;
  return Math.max(1, Math.ceil(spec.mean + NORMAL_CUT_SD * spec.sd));
}

/** The mean of a spec's lengths (before clamping, which only a wide normal reaches). */
export function meanLength(spec: LengthSpec): number {
  if (spec.kind === 'fixed') return spec.tokens;
  if (spec.kind === 'uniform') return (spec.min + spec.max) / 2;
  return spec.mean;
}
