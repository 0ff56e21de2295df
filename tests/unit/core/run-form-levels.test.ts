/** The Run form's requests at once: automatic is the CLI's default matrix, planned against the server's KV cache. */
import { describe, expect, it } from 'vitest';
import type { RunForm } from '#shared/ipc/forms';
import type { KvBudget } from '#shared/session/schema';
import { RunControl } from '../../../src-main/hosts/app-core/run-control';
import type { ServerTarget } from '../../../src-main/engine/server/target';

const K = 1024;
/** The seed preset's matrix, requests at once automatic (the store's test checks the preset is). */
const FORM: RunForm = {
  contexts: [8 * K, 16 * K, 32 * K, 64 * K, 128 * K, 251 * K],
  concurrency: [],
  prefillContexts: [],
  secondsPerMeasurement: 30,
  maxOutputTokens: 4096,
  tokenTargeting: 'exact',
  repeat: 1,
};

const kv = (tokens: number): KvBudget => ({
  tokens,
  source: 'startup-log',
  detail: null,
  maxConcurrency: null,
  tokensPerRequest: null,
});

/** The app's plan of a form against a simulated server of this KV budget, as the page's preview asks for it. */
function planned(form: RunForm, kvTokens: number) {
  const target = { maxModelLen: 262_144, kvBudget: kv(kvTokens), simulated: true, simSpeed: 10 } as ServerTarget;
  const deps = { events: { emit: () => {} }, target: () => target, runsDir: '' };
  return new RunControl(deps as unknown as ConstructorParameters<typeof RunControl>[0]).plan(form);
}

const UP_TO_128 = [1, 2, 4, 8, 16, 32, 64, 128];

describe('the Run form’s requests at once', () => {
  it('automatic: 1–128, and 256 and 512 where the KV cache holds them at the smallest context', () => {
    // 512 × (8K + 4,096 output) = 6,291,456 tokens.
    expect(planned(FORM, 6_291_456).concurrency).toEqual([...UP_TO_128, 256, 512]);
    expect(planned(FORM, 6_291_455).concurrency).toEqual([...UP_TO_128, 256]);
    expect(planned(FORM, 1_000_000).concurrency).toEqual(UP_TO_128);
    // The preview's cells are the resolved levels' too.
    const cells = planned(FORM, 10_000_000).cells;
    expect(cells.filter((c) => c.context === 8 * K).map((c) => c.concurrency)).toEqual([...UP_TO_128, 256, 512]);
  });

  it('explicit levels are kept, whatever room the server has', () => {
    expect(planned({ ...FORM, concurrency: [4, 1, 2] }, 10_000_000).concurrency).toEqual([1, 2, 4]);
    expect(planned({ ...FORM, concurrency: UP_TO_128 }, 10_000_000).concurrency).toEqual(UP_TO_128);
  });
});
