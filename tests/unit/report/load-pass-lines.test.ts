/**
 * The line `speedmatrix load` prints as a pass starts: a sweep's rates are spread between two
 * measured rates (1.1833333333333336 req/s), so the rate is printed as the load table words it.
 */
import { describe, expect, it } from 'vitest';
import { passStartLine } from '#shared/report/load-model';

describe('the line a load pass starts with', () => {
  it('words a sweep’s spread rate as the table does, and names the sweep’s own passes', () => {
    expect(passStartLine({ pass: 'rate', targetRate: 1.1833333333333336 }, 2, 6)).toBe('[3/6] 1.2 req/s...');
    expect(passStartLine({ pass: 'rate', targetRate: 0.5 }, 0, 4)).toBe('[1/4] 0.50 req/s...');
    expect(passStartLine({ pass: 'synchronous', targetRate: null }, 0, 6)).toBe('[1/6] synchronous pass...');
    expect(passStartLine({ pass: 'throughput', targetRate: null }, 1, 6)).toBe('[2/6] throughput pass...');
  });
});
