/**
 * A Slurm sweep opened in the app (real renderer in Chromium, real core, a real one-node Slurm
 * from tests/helpers/slurm.ts): the jobs' states as they move on without a reload, a failed job's
 * reason and log tail, and Stop cancelling the job still waiting after the person confirms.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { ROOT } from '../helpers/paths';
import { SIM, SIM_MATRIX, type SlurmCluster, slurmWebTest as it } from '../helpers/slurm';
import { hasChromium, openPage } from './browser';

const jobState = (page: Page, label: string) => page.getByTestId(`job-${label}`).getAttribute('data-state');
const row = (page: Page, label: string) => page.getByTestId(`job-${label}`).innerText();

async function until(what: string, ok: () => Promise<boolean>, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what} did not happen in time`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Submit a held three-variant sweep with the CLI, then leave it (Ctrl-C with no terminal: the jobs go on). */
async function submitHeld(slurm: SlurmCluster, dir: string): Promise<string[]> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(ROOT, 'src-main/hosts/cli/bin.cjs'),
      'sweep',
      '--slurm',
      '--slurm-option=--gres=gpu:1',
      '--slurm-option=--hold',
      '--vary',
      '--max-model-len=99999999,32768,16384',
      ...SIM_MATRIX,
      '--out-dir',
      dir,
      ...SIM,
    ],
    { cwd: ROOT, env: slurm.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exit = new Promise((r) => child.on('close', r));
  await until('three submissions', async () => (out.match(/submitted\./g) ?? []).length === 3);
  child.kill('SIGINT');
  expect(await exit).toBe(130);
  expect(out).toContain('The jobs go on without this terminal');
  return [...out.matchAll(/: job (\d+) submitted\./g)].map((m) => m[1]);
}

describe.skipIf(!hasChromium)('a Slurm sweep in the app', () => {
  it('shows each job waiting, failing with its reason and log, done, and cancels the one still waiting after asking', async ({
    slurm,
    bridge,
    browser,
    tempDir,
  }) => {
    // The core asks squeue and scancel from this process.
    process.env.SLURM_CONF = slurm.env.SLURM_CONF;
    const dir = join(tempDir('sm-web-slurm-'), 'sweep');
    const ids = await submitHeld(slurm, dir);

    const { page, problems } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    bridge.dialogs.folderQueue.push(dir);
    await page.getByTestId('open-sweep').click();
    await page.getByTestId('sweep-jobs').waitFor({ timeout: 15_000 });
    expect(await row(page, 'A')).toMatch(
      new RegExp(`A · --max-model-len=99999999\\s+${ids[0]}\\s+pending\\s+—\\s+JobHeldUser`),
    );
    expect(await jobState(page, 'C')).toBe('pending');

    // Released on the cluster: the view follows without being opened again.
    execFileSync('scontrol', ['release', `${ids[0]},${ids[1]}`], { env: slurm.env });
    await until(
      'A failed and B done on screen',
      async () => (await jobState(page, 'A')) === 'failed' && (await jobState(page, 'B')) === 'done',
    );
    expect(await row(page, 'A')).toContain('greater than the derived max_model_len');
    await page.getByTestId('job-A').locator('summary').click();
    expect(await page.getByTestId('job-log-A').innerText()).toMatch(/the server did not start/);
    // B's measured session is in the comparison now.
    expect(await page.getByTestId('open-entry-B').isVisible()).toBe(true);

    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.accept();
    });
    await page.getByTestId('cancel-sweep-jobs').click();
    await until('C cancelled on screen', async () => (await jobState(page, 'C')) === 'failed');
    expect(asked).toContain('Cancel the job of this sweep that waits or runs on the cluster (scancel)?');
    expect(await row(page, 'C')).toContain('cancelled');
    expect(execFileSync('scontrol', ['show', 'job', '-o', ids[2]], { env: slurm.env, encoding: 'utf8' })).toMatch(
      /JobState=CANCELLED/,
    );
    expect(await page.getByTestId('cancel-sweep-jobs').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 600_000);
});
