/**
 * The app core end to end against the real simulator process (through the real supervisor and
 * benchmark worker): a run stopped after its first cell keeps what it measured, and Resume
 * finishes the matrix without measuring any cell twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppCore } from '../../../src-main/hosts/app-core';
import type { RunUpdate } from '#shared/ipc/contract';
import { type CoreOnSim, coreOnReadySim, until } from '../../helpers/core-sim';

describe('app core: stop and resume a run against the simulator', () => {
  let core: AppCore;
  let sim: CoreOnSim;
  const updates: RunUpdate[] = [];
  beforeAll(async () => {
    sim = await coreOnReadySim('speedmatrix-core-', '16K');
    core = sim.core;
    core.on('run:update', (u) => updates.push(u));
  }, 90_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('stops after the first cell, keeping it; resume measures only the rest', async () => {
    const form = {
      contexts: [4096],
      concurrency: [1, 2, 4],
      prefillContexts: [],
      secondsPerMeasurement: 25,
      maxOutputTokens: 1024,
      tokenTargeting: 'estimate' as const,
    };
    const started = await core.invoke('run:start', [form]);
    expect(started.ok).toBe(true);
    await until(() => updates.some((u) => u.cells.length > 0), 90_000);
    const stopped = await core.invoke('run:stop', []);
    expect(stopped.ok && stopped.data.phase).toBe('cancelled');
    const first = await core.invoke('session:get', []);
    if (!first.ok) throw new Error(first.error);
    if (!first.data.session) throw new Error('the stopped run left no session');
    // On a loaded machine a measured cell may be Requests queued: measured all the same.
    const done = first.data.session.cells.filter((c) => c.status === 'valid' || c.status === 'queued');
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(first.data.meta).toMatchObject({ file: null, dirty: true });
    const startedAt = new Map(done.map((c) => [`${c.context}x${c.concurrency}`, c.startedAt]));

    const resumeFrom = updates.length;
    const resumeStartedAt = Date.now();
    const resumed = await core.invoke('run:resume', []);
    expect(resumed.ok).toBe(true);
    // The resumed run writes into a session that holds the finished cells and prefill point from its start.
    const run = resumed.ok ? resumed.data.run : -1;
    expect(run).toBeGreaterThan(first.data.meta.run ?? 0);
    let continued = await core.invoke('session:get', []);
    for (let end = Date.now() + 60_000; continued.ok && continued.data.meta.replaced <= first.data.meta.replaced;) {
      if (Date.now() > end) throw new Error('the resumed run never wrote its session');
      await new Promise((r) => setTimeout(r, 50));
      continued = await core.invoke('session:get', []);
    }
    if (!continued.ok || !continued.data.session) throw new Error('no session after resume');
    expect(continued.data.meta.run).toBe(run);
    const kept = continued.data.session.cells.map((c) => `${c.context}x${c.concurrency}`);
    for (const key of startedAt.keys()) expect(kept).toContain(key);
    expect(continued.data.session.prefill.map((p) => p.context)).toContain(4096);
    // Its run updates carry only what it measures: a cell travels once.
    await until(() => updates.slice(resumeFrom).some((u) => u.progress !== null && u.cells.length > 0), 60_000);
    const sent = updates.slice(resumeFrom).flatMap((u) => u.cells.map((c) => `${c.context}x${c.concurrency}`));
    for (const key of startedAt.keys()) expect(sent).not.toContain(key);
    // The ETA counts only the cells left, and a stopped cell is not counted as done.
    const firstProgress = updates.slice(resumeFrom).find((u) => u.progress !== null)?.progress;
    expect(firstProgress?.done).toBe(done.length);
    const fullPlan = await core.invoke('run:plan', [form]);
    if (!fullPlan.ok) throw new Error(fullPlan.error);
    expect(firstProgress?.etaSeconds).toBeLessThan(fullPlan.data.etaSeconds);
    const resumeEta = firstProgress?.etaSeconds ?? 0;
    await until(() => updates.at(-1)?.phase === 'done', 120_000);
    const resumeActual = (Date.now() - resumeStartedAt) / 1000;
    console.log(`ETA check, resume: ${resumeEta.toFixed(1)} s estimated, ${resumeActual.toFixed(1)} s taken`);
    expect(Math.abs(resumeEta - resumeActual) / resumeActual).toBeLessThan(0.3);
    const after = await core.invoke('session:get', []);
    if (!after.ok || !after.data.session) throw new Error('no session after resume');
    const cells = after.data.session.cells;
    expect(cells.map((c) => c.concurrency).sort()).toEqual([1, 2, 4]);
    expect(cells.every((c) => c.status === 'valid' || c.status === 'queued')).toBe(true);
    // The cells measured before the stop were not measured again.
    for (const [key, at] of startedAt)
      expect(cells.find((c) => `${c.context}x${c.concurrency}` === key)?.startedAt).toBe(at);
  }, 240_000);

  it('estimates a run close to the time it takes, and within 20% once the first cell has been measured', async () => {
    const form = {
      contexts: [4096, 8192],
      concurrency: [1, 4],
      prefillContexts: [],
      secondsPerMeasurement: 15,
      maxOutputTokens: 1024,
      tokenTargeting: 'estimate' as const,
    };
    const planned = await core.invoke('run:plan', [form]);
    if (!planned.ok) throw new Error(planned.error);
    const from = updates.length;
    const t0 = Date.now();
    expect((await core.invoke('run:start', [form])).ok).toBe(true);
    await until(() => updates.slice(from).some((u) => (u.progress?.done ?? 0) >= 1), 120_000);
    const refinedAt = Date.now();
    const refined = updates.slice(from).find((u) => (u.progress?.done ?? 0) >= 1)?.progress?.etaSeconds ?? 0;
    await until(() => updates.slice(from).some((u) => u.phase === 'done'), 180_000);
    const actual = (Date.now() - t0) / 1000;
    const rest = (Date.now() - refinedAt) / 1000;
    console.log(
      `ETA check, whole run: ${planned.data.etaSeconds.toFixed(1)} s planned, ${actual.toFixed(1)} s taken; after the first cell ${refined.toFixed(1)} s estimated, ${rest.toFixed(1)} s taken`,
    );
    // Measured cells refine the estimate: it absorbs how fast this machine really is right now.
    expect(Math.abs(refined - rest) / rest).toBeLessThan(0.2);
    // Before anything ran, the phase model alone (a busy shared machine stretches wall time).
    expect(Math.abs(planned.data.etaSeconds - actual) / actual).toBeLessThan(0.3);
  }, 200_000);
});
