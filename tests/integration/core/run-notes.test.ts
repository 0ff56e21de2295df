/**
 * The app core against the real simulator process: what the orchestrator notes when a run
 * starts (a context too long for the server's max_model_len) reaches the page under the run's
 * plan, as the CLI prints it as "note: ...".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppCore } from '../../../src-main/hosts/app-core';
import type { RunUpdate } from '#shared/ipc/contract';
import { type CoreOnSim, coreOnReadySim, until } from '../../helpers/core-sim';

// The orchestrator's note for a context that cannot fit with the run's max output (16K + 1,024 > 16,384).
const TOO_LONG_NOTE =
  /^16K context \+ 1,024 output tokens exceeds max_model_len 16,384: those cells are marked Too long and not run\.$/;

describe('app core: the notes of a started run', () => {
  let core: AppCore;
  let sim: CoreOnSim;
  const updates: RunUpdate[] = [];
  beforeAll(async () => {
    sim = await coreOnReadySim('speedmatrix-notes-', '16K');
    core = sim.core;
    core.on('run:update', (u) => updates.push(u));
  }, 90_000);
  afterAll(async () => {
    await sim?.close();
  });

  it("shows the orchestrator's Too long note under the run's plan, which the plan before the start does not have", async () => {
    const form = {
      contexts: [4096, 16384],
      concurrency: [1],
      prefillContexts: [],
      secondsPerMeasurement: 5,
      maxOutputTokens: 1024,
      tokenTargeting: 'estimate' as const,
    };
    const planned = await core.invoke('run:plan', [form]);
    if (!planned.ok) throw new Error(planned.error);
    expect(planned.data.notes.some((n) => TOO_LONG_NOTE.test(n))).toBe(false);

    const started = await core.invoke('run:start', [form]);
    if (!started.ok) throw new Error(started.error);
    const withNote = (u: RunUpdate) => u.plan?.notes.some((n) => TOO_LONG_NOTE.test(n)) ?? false;
    await until(() => updates.some(withNote), 60_000);
    // Once, under the plan, beside the plan's own warnings.
    expect(updates.find(withNote)?.plan?.notes.filter((n) => TOO_LONG_NOTE.test(n))).toHaveLength(1);
    const stopped = await core.invoke('run:stop', []);
    expect(stopped.ok).toBe(true);
  }, 120_000);
});
