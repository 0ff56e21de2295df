/**
 * A GPU's price per hour as people write it: "2.5", "2.5 USD", "EUR 2.10", "€2.10", "$2.5". The
 * currency is a three-letter ISO 4217 code; a bare number is taken as US dollars (the currency
 * cloud GPU prices are usually quoted in), and every cost shown names its currency, so nothing
 * reads as dollars by accident. Used by the CLI's --gpu-price and the app's price field alike.
 */
export interface GpuPrice {
  perHour: number;
  currency: string;
}

export const DEFAULT_CURRENCY = 'USD';

const SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP' };
const PRICE_TEXT = /^(?:([A-Za-z]{3})\s*|([$€£])\s*)?(\d+(?:\.\d+)?|\.\d+)\s*(?:([A-Za-z]{3})|([$€£]))?$/;

/** The price and its currency, or null when the text is not one price above 0 in at most one currency. */
export function parseGpuPrice(text: string): GpuPrice | null {
  const m = PRICE_TEXT.exec(text.trim());
  if (!m) return null;
  const named = [m[1], m[4]].flatMap((c) => (c ? [c.toUpperCase()] : []));
  named.push(...[m[2], m[5]].flatMap((s) => (s ? [SYMBOLS[s]] : [])));
  const perHour = Number(m[3]);
  if (named.length > 1 || !(perHour > 0 && Number.isFinite(perHour))) return null;
  return { perHour, currency: named[0] ?? DEFAULT_CURRENCY };
}

/** What a price field or flag takes, for help texts and errors. */
export const GPU_PRICE_HINT =
  'the price of one GPU for one hour, in US dollars unless you name the currency: 2.5, 2.1 EUR or €2.10';
