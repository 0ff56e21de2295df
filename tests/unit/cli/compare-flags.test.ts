/** `speedmatrix compare --max-regression`: the limit as a fraction, or null for anything that is not a percentage below 100. */
import { describe, expect, it } from 'vitest';
import { parseRegressionLimit } from '../../../src-main/hosts/cli/commands/compare-flags';

describe('the regression limit', () => {
  it('reads a percentage with or without its sign, whole or decimal, spaces around it', () => {
    expect(parseRegressionLimit('5%')).toBe(0.05);
    expect(parseRegressionLimit('5')).toBe(0.05);
    expect(parseRegressionLimit('0.5%')).toBe(0.005);
    expect(parseRegressionLimit(' 12.5 % ')).toBe(0.125);
    expect(parseRegressionLimit('12.25%')).toBe(0.1225);
    expect(parseRegressionLimit('0')).toBe(0);
    expect(parseRegressionLimit('99.9%')).toBeCloseTo(0.999, 12);
  });

  it('refuses 100 and above, negatives, fractions without a leading digit, words and trailing text', () => {
    for (const bad of ['100', '100%', '250%', '-5%', '.5', '5%%', 'five', '5% more', '5 5', '', '%'])
      expect(parseRegressionLimit(bad), bad).toBeNull();
  });
});
