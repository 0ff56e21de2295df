/**
 * The app's own words in the real renderer against the real core: a chip field says what it
 * takes, automatic requests at once say what they measure, a file that is not a session does not point to a command the app lacks, and a load
 * sweep of one rate reads in the singular.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DEFAULT_CONCURRENCY_WORDS } from '#shared/default-concurrency';
import { importText } from '../../src-main/workflows/importers';
import { serializeSession } from '../../src-main/platform/session/write';
import { webTest as it } from '../helpers/fixtures';
import { ROOT } from '../helpers/paths';
import { hasChromium, shot } from './browser';

describe.skipIf(!hasChromium)("the app's words", () => {
  it('a chip field refuses a value saying what it takes', async ({ app: { page } }) => {
    await page.keyboard.press('Control+3');
    const add = async (field: string, text: string) => {
      const chips = page.getByTestId(`chips-${field}`);
      await chips.locator('input').fill(text);
      await chips.locator('input').press('Enter');
      return chips.locator('.error').innerText();
    };
    expect(await add('contexts', 'abc')).toBe('"abc" is not a token count such as 8k or 32768.');
    expect(await add('concurrency', '-5')).toBe('"-5" is not a whole number of requests above 0, such as 8.');
    await page.getByTestId('run-mode').getByText('Load', { exact: true }).click();
    expect(await add('rates', '-1')).toBe('"-1" is not a rate above 0 requests per second, such as 0.5 or 4.');
    await shot(page, '92-rate-chip-error', false);
    await page.getByTestId('run-mode').getByText('Matrix', { exact: true }).click();
  });

  it('requests at once say what automatic measures; a level typed replaces it, and the link brings it back', async ({
    app: { page },
  }) => {
    await page.keyboard.press('Control+3');
    const chips = page.getByTestId('chips-concurrency');
    const automatic = `Automatic: ${DEFAULT_CONCURRENCY_WORDS}. Add a level to choose your own.`;
    await expect.poll(() => chips.locator('small').innerText()).toBe(automatic);
    expect(await page.locator('#preset option').allInnerTexts()).toContain(
      'Seed matrix: 8K–251K × automatic requests at once',
    );
    // With no server the plan knows no KV budget, so automatic is 1–128: the preview's columns say so.
    await expect.poll(() => page.getByTestId('run-heatmap').locator('thead th').last().innerText()).toMatch(/128/);
    await chips.locator('input').fill('16');
    await chips.locator('input').press('Enter');
    expect(await chips.locator('li.chip').allInnerTexts()).toEqual([expect.stringMatching(/^16/)]);
    await chips.getByRole('button', { name: /^Automatic/ }).click();
    await expect.poll(() => chips.locator('small').innerText()).toBe(automatic);
    expect(await chips.locator('li.chip').count()).toBe(0);
  });

  it("the Load form marks a bad number at its field in the form's words, and Start waits", async ({
    app: { page },
  }) => {
    await page.keyboard.press('Control+3');
    await page.getByTestId('run-mode').getByText('Load', { exact: true }).click();
    const duration = page.locator('#load-duration');
    await duration.fill('-5');
    await expect
      .poll(() => page.locator('#load-duration-error').innerText())
      .toBe('Give the seconds measured at each rate: a number above 0.');
    expect(await duration.getAttribute('aria-invalid')).toBe('true');
    await page.locator('#load-warmup').fill('-1');
    await expect
      .poll(() => page.locator('#load-warmup-error').innerText())
      .toBe('Give the warm-up seconds: 0 or more.');
    expect(await page.getByTestId('start-load').isDisabled()).toBe(true);
    expect(await page.getByTestId('load-waits').innerText()).toBe('Fix the marked fields first.');
    expect(await page.getByTestId('view-run').innerText()).not.toMatch(/Bad arguments|Too small/);
    await shot(page, '93-load-field-errors', false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '93-load-field-errors-dark', false);
    await page.emulateMedia({ colorScheme: 'light' });
    await duration.fill('30');
    await page.locator('#load-warmup').fill('5');
    await expect.poll(() => page.locator('#load-duration-error').count()).toBe(0);
    expect(await page.getByTestId('load-plan').innerText()).toMatch(/each 5 s warm-up and 30 s measured/);
    await page.getByTestId('run-mode').getByText('Matrix', { exact: true }).click();
  });

  it("the Load form checks arrivals, token lengths and targets at their fields by the load command's rules", async ({
    app: { page },
  }) => {
    await page.keyboard.press('Control+3');
    await page.getByTestId('run-mode').getByText('Load', { exact: true }).click();
    const fieldError = (id: string) => page.locator(`#${id}-error`);
    const cases: [string, string, string][] = [
      [
        'load-arrivals',
        'gamma:x',
        'Arrivals must be poisson, constant or gamma:CV with CV a positive number (e.g. gamma:2 for bursts), got "gamma:x".',
      ],
      [
        'load-input-len',
        'abc',
        'Input: "abc" is not a positive whole number of tokens (e.g. 1024, 512-2048 or 1024~256).',
      ],
      [
        'load-output-len',
        '-5',
        'Output: "-5" is not a positive whole number of tokens (e.g. 1024, 512-2048 or 1024~256).',
      ],
      [
        'load-slo',
        'ttft<=2',
        'Targets: "ttft<=2" is not a target: ttft, tbt or e2e, then <= and a time in ms or s (e.g. ttft<=500ms,tbt<=50ms,e2e<=20s).',
      ],
    ];
    for (const [id, text, words] of cases) {
      await page.locator(`#${id}`).fill(text);
      await expect.poll(() => fieldError(id).innerText()).toBe(words);
      expect(await page.locator(`#${id}`).getAttribute('aria-invalid')).toBe('true');
    }
    // Numbers the form keeps as numbers: a cap and the sweep's rates are whole and above 0, not quietly dropped.
    await page.locator('#load-max-in-flight').fill('-5');
    await expect
      .poll(() => fieldError('load-max-in-flight').innerText())
      .toBe('Give the most requests in flight: a whole number above 0, or leave it empty for no cap.');
    expect(await page.locator('#load-max-in-flight').inputValue()).toBe('-5');
    await page.getByTestId('load-form').getByText('Sweep', { exact: true }).click();
    await page.locator('#load-sweep-points').fill('0');
    await expect
      .poll(() => fieldError('load-sweep-points').innerText())
      .toBe('Give how many rates to spread between: a whole number from 1 to 64.');
    expect(await page.getByTestId('start-load').isDisabled()).toBe(true);
    expect(await page.getByTestId('load-waits').innerText()).toBe('Fix the marked fields first.');
    expect(await page.getByTestId('view-run').innerText()).not.toMatch(/Bad arguments|--arrivals|--input-len|--slo/);
    await shot(page, '95-load-shape-errors', false);
    for (const [id, good] of [
      ['load-arrivals', 'gamma:2'],
      ['load-input-len', '512-2048'],
      ['load-output-len', '128'],
      ['load-slo', ''],
    ]) {
      await page.locator(`#${id}`).fill(good);
      await expect.poll(() => fieldError(id).count()).toBe(0);
    }
    await page.locator('#load-sweep-points').fill('3');
    await page.getByTestId('load-form').getByText('Rates', { exact: true }).click();
    await page.locator('#load-max-in-flight').fill('');
    await expect.poll(() => fieldError('load-max-in-flight').count()).toBe(0);
    expect(await page.getByTestId('load-waits').count()).toBe(0);
    await page.getByTestId('run-mode').getByText('Matrix', { exact: true }).click();
  });

  it('the SSH host field refuses a host with a space at the field, and the preview never shows it', async ({
    app: { page },
  }) => {
    await page.keyboard.press('Control+2');
    await page.locator('input[name="where"][value="ssh"]').check();
    await page.locator('#srv-sshHost').fill('gpu box');
    const error = page.locator('#srv-sshHost-error');
    await expect
      .poll(() => error.innerText(), { timeout: 10_000 })
      .toBe('SSH host: "gpu box" is not a host: give an alias from ~/.ssh/config or user@host.');
    expect(await page.locator('#srv-sshHost').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('view-server').innerText()).not.toMatch(/ssh gpu box/);
    expect(await page.getByTestId('start-server').isDisabled()).toBe(true);
    await page.getByTestId('remote-host').scrollIntoViewIfNeeded();
    await shot(page, '94-ssh-host-error', false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '94-ssh-host-error-dark', false);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.locator('#srv-sshHost').fill('gpu-box');
    await expect
      .poll(() => page.getByTestId('command-preview').innerText(), { timeout: 10_000 })
      .toMatch(/^ssh gpu-box speedmatrix serve -- /);
    expect(await error.count()).toBe(0);
    await page.locator('input[name="where"][value="local"]').check();
  });

  it('a JSON file that is not a session says so, without an Import the app does not have', async ({
    app: { page },
  }) => {
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('file-input').setInputFiles({
      name: 'other.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ format: 'something-else', results: [] })),
    });
    const err = page.getByTestId('open-error');
    await err.waitFor();
    expect(await err.innerText()).toMatch(/other\.json is not a SpeedMatrix session/);
    expect(await err.innerText()).not.toMatch(/Import/);
  });

  it('a load sweep of one rate reads "sweep of 1 rate"', async ({ app: { page }, bridge }) => {
    const name = 'vllm-bench-serve-rate4.json';
    const imported = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
    if (!imported.ok) throw new Error(imported.error);
    const load = imported.data.load!;
    const session = { ...imported.data, load: { ...load, config: { ...load.config, sweep: { points: 1 } } } };
    const file = join(bridge.dialogs.saveDir, 'sweep1.speedmatrix.json');
    writeFileSync(file, serializeSession(session));
    expect((await bridge.core.invoke('session:open', [file])).ok).toBe(true);
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('load').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('load').innerText()).toMatch(/sweep of 1 rate ·/);
  });
});
