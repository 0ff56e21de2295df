import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
/** A report's text as its web page gives it, written for the tests (made-up figures in the real format). */
export const SYNTHETIC_REPORT = join(ROOT, 'tests/fixtures/reports/synthetic-matrix.txt');
/** The same format for a long-context run on a named NVIDIA card: a 251K label that stands for 257,984 tokens. */
export const SYNTHETIC_LONG_CONTEXT_REPORT = join(ROOT, 'tests/fixtures/reports/synthetic-long-context.txt');
/** Real nvidia-smi and systeminformation output of an H200 host, copied into the repository (tests/fixtures/gpu/nvidia-h200/README.md). */
export const H200_FIXTURES = join(ROOT, 'tests/fixtures/gpu/nvidia-h200');
/** Screenshots, PDFs and other things a person may want to look at after a run. */
export const ARTIFACTS = join(ROOT, 'test-results');

/**
 * A simulator profile for clients holding thousands of streams (--sim-profile FILE): every decode step takes 0.5 s
 * and gives 8 tokens whatever the batch, so each stream reads exactly 16 tok/s at any concurrency; prefill is
 * instant and the KV budget never limits.
 */
export const ROOMY_PROFILE = join(ROOT, 'tests/fixtures/sim-profiles/roomy-steady.json');
/** The per-stream rate that profile gives (8 tokens per 0.5 s step). */
export const ROOMY_STREAM_RATE = 16;
