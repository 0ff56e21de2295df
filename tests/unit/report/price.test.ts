import { describe, expect, it } from 'vitest';
import { DEFAULT_CURRENCY, parseGpuPrice } from '#shared/report/price';
import { metricContextOf, metricLabel } from '#shared/report/cell-metrics';
import { sampleSession } from '../../helpers/sample-session';

describe('a GPU price as people write it', () => {
  it('reads a bare number as US dollars', () => {
    expect(parseGpuPrice('2.5')).toEqual({ perHour: 2.5, currency: 'USD' });
    expect(parseGpuPrice(' .75 ')).toEqual({ perHour: 0.75, currency: DEFAULT_CURRENCY });
  });

  it('takes a currency code before or after the number, in any case, and the common symbols', () => {
    expect(parseGpuPrice('2.10 EUR')).toEqual({ perHour: 2.1, currency: 'EUR' });
    expect(parseGpuPrice('gbp 1.9')).toEqual({ perHour: 1.9, currency: 'GBP' });
    expect(parseGpuPrice('€2.10')).toEqual({ perHour: 2.1, currency: 'EUR' });
    expect(parseGpuPrice('$3')).toEqual({ perHour: 3, currency: 'USD' });
    expect(parseGpuPrice('3£')).toEqual({ perHour: 3, currency: 'GBP' });
    expect(parseGpuPrice('JPY350')).toEqual({ perHour: 350, currency: 'JPY' });
  });

  it('refuses what is not one price above 0 in at most one currency', () => {
    for (const bad of [
      '',
      'abc',
      '0',
      '-1',
      '2.5.1',
      '1e3',
      'EUR',
      '$2 EUR',
      'USD 2 EUR',
      '2,50',
      'EURO 2',
      '2 dollars',
    ])
      expect(parseGpuPrice(bad), bad).toBeNull();
  });
});

describe("a cost's label names its currency", () => {
  it('adds the currency to cost only', () => {
    const session = sampleSession();
    expect(metricLabel('cost-per-million', metricContextOf(session, 2, 'EUR'))).toBe(
      'Cost per million output tokens (EUR)',
    );
    expect(metricLabel('cost-per-million', metricContextOf(session, 2))).toBe('Cost per million output tokens (USD)');
    expect(metricLabel('total', metricContextOf(session, 2, 'EUR'))).toBe('Total tok/s');
  });
});
