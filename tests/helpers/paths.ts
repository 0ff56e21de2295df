import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const SHARED = resolve(ROOT, '../shared');
export const FIXTURES = join(SHARED, 'fixtures');
/** A report's text as its web page gives it, written for the tests (made-up figures in the real format). */
export const SYNTHETIC_REPORT = join(ROOT, 'tests/fixtures/reports/synthetic-matrix.txt');
export const REFERENCE_REPORT = join(FIXTURES, 'reports/fara-4b-rtx-pro-6000-bf16.txt');
/** Real nvidia-smi and systeminformation output of an H200 host, copied into the repository (tests/fixtures/gpu/nvidia-h200/README.md). */
export const H200_FIXTURES = join(ROOT, 'tests/fixtures/gpu/nvidia-h200');
/** Screenshots, PDFs and other things a person may want to look at after a run. */
export const ARTIFACTS = join(ROOT, 'test-results');
