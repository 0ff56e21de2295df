/**
 * The Server view as a person meets it, in real Chromium against the real core: a start that
 * fails at once (port in use) shows why without pressing Stop, invalid fields are marked at the
 * field, "auto" shows the port that will be used, and switching engine clears an old failure.
 */
import { type Server, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { webTest } from '../helpers/fixtures';
import { hasChromium, shot } from './browser';

const it = webTest.override('bridgeOptions', { scope: 'file' }, { core: { stopTimeoutMs: 8000 } });

function occupyPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr ? addr.port : 0 });
    });
  });
}

describe.skipIf(!hasChromium)('Server view forms and start races in Chromium', () => {
  let busy: { server: Server; port: number };
  beforeAll(async () => {
    busy = await occupyPort();
  });
  it.beforeAll(async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
  });
  afterAll(() => {
    busy?.server.close();
  });

  it('shows a start on a busy port as failed with the reason, without pressing Stop', async ({ app: { page } }) => {
    await page.locator('#srv-port').fill(String(busy.port));
    await page.getByTestId('start-server').click();
    await page.locator('[data-testid="server-status"][data-state="failed"]').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('server-failure').innerText()).toMatch(
      new RegExp(`${busy.port}.*(in use|busy)|(in use|busy).*${busy.port}`, 'i'),
    );
    // It stays failed: the start request's late reply does not put it back to "Starting".
    await page.waitForTimeout(500);
    expect(await page.getByTestId('server-status').getAttribute('data-state')).toBe('failed');
    expect(await page.getByTestId('server-elapsed').count()).toBe(0);
    await shot(page, '40-server-port-in-use', false);
  }, 30_000);

  it('clears the old failure panel when the engine changes', async ({ app: { page } }) => {
    await page.getByTestId('server-failure').waitFor();
    await page.locator('input[name="kind"][value="vllm-native"]').check();
    expect(await page.getByTestId('server-failure').count()).toBe(0);
    await page.locator('input[name="kind"][value="simulator"]').check();
    expect(await page.getByTestId('server-failure').count()).toBe(0);
  });

  it('marks an invalid field at the field, moves focus there, and disables Start until it is valid', async ({
    app: { page },
  }) => {
    await page.locator('#srv-port').fill('');
    await page.locator('#srv-maxModelLen').fill('lots');
    const field = page.locator('#srv-maxModelLen');
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const msgId = await field.getAttribute('aria-errormessage');
    expect(msgId).toBeTruthy();
    expect(await page.locator(`#${msgId}`).innerText()).toMatch(/max.model.len|Max model length/i);
    expect(await page.getByTestId('start-server').isDisabled()).toBe(true);
    // Focus moves to the invalid field when the person tries to go on (Enter in another field).
    await page.locator('#srv-model').focus();
    await page.locator('#srv-model').press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('srv-maxModelLen');
    await shot(page, '41-server-invalid-field', false);
    await field.fill('32k');
    await expect.poll(() => field.getAttribute('aria-invalid')).not.toBe('true');
    await expect.poll(() => page.getByTestId('start-server').isEnabled()).toBe(true);
  });

  it('shows the port that will be used when the port is auto', async ({ app: { page } }) => {
    await page.locator('#srv-port').fill('');
    const preview = page.getByTestId('command-preview');
    await expect.poll(() => preview.textContent()).toMatch(/--port \d{2,5}/);
    expect(await preview.textContent()).not.toMatch(/--port 8000\b/);
    expect(await page.locator('#srv-port').getAttribute('placeholder')).toMatch(/auto/);
  });

  it('offers the simulated GPU profiles as a list', async ({ app: { page } }) => {
    const select = page.locator('select#srv-simProfile');
    await select.waitFor();
    const options = await select.locator('option').allInnerTexts();
    expect(options.length).toBeGreaterThan(2);
    expect(options.join('\n')).toMatch(/rtx-pro-6000-fara-4b-bf16/);
  });

  it('keeps Start server in view at 1280x800 without scrolling, and still clickable', async ({ app: { page } }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const start = page.getByTestId('start-server');
    await start.waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    const box = await start.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(800);
    // Nothing covers it: the element at its centre is the button itself (or its text).
    const onTop = await page.evaluate(
      ({ x, y }) => document.elementFromPoint(x, y)?.closest('[data-testid="start-server"]') !== null,
      { x: box!.x + box!.width / 2, y: box!.y + box!.height / 2 },
    );
    expect(onTop).toBe(true);
  });

  it('describes the chosen simulated GPU profile in words, the default one too', async ({ app: { page } }) => {
    const select = page.locator('select#srv-simProfile');
    await select.waitFor();
    const help = page.locator('#srv-simProfile-help');
    await select.selectOption('');
    await expect.poll(() => help.textContent()).toMatch(/^\S+: .{20,}/);
    await select.selectOption('h200-8b-bf16');
    await expect.poll(() => help.textContent()).toMatch(/^h200-8b-bf16: An 8B dense model .* on one H200/);
    await select.selectOption('rtx-pro-6000-fara-4b-bf16');
    await expect
      .poll(() => help.textContent())
      .toMatch(/^rtx-pro-6000-fara-4b-bf16: Fara1\.5-4B in BF16 on one RTX PRO 6000/);
  });

  it('warns before launching: a flag the chosen image lacks, and a size written with k', async ({ app: { page } }) => {
    await page.locator('input[name="kind"][value="vllm-docker"]').check();
    await page.locator('#srv-dockerImage').fill('vllm/vllm-openai:v0.11.0');
    await page.locator('#srv-maxModelLen').fill('32k');
    await page.locator('#srv-extraArgs').fill('--attention-backend\nFLASHINFER');
    const warnings = page.getByTestId('preview-warning');
    await expect.poll(() => warnings.count()).toBe(2);
    const text = (await warnings.allInnerTexts()).join('\n');
    expect(text).toMatch(/Max model length 32k is 32,000 tokens/);
    expect(text).toMatch(
      /--attention-backend needs vLLM 0\.13 or newer; for v0\.11\.0 it is passed as VLLM_ATTENTION_BACKEND=FLASHINFER instead\./,
    );
    const preview = await page.getByTestId('command-preview').textContent();
    expect(preview).toMatch(/--entrypoint vllm vllm\/vllm-openai:v0\.11\.0 serve /);
    expect(preview).toMatch(/--max-model-len 32000\b/);
    expect(preview).not.toMatch(/--attention-backend/);
    await shot(page, '42-server-version-warnings', false);
    await page.locator('input[name="kind"][value="simulator"]').check();
  });

  it("switching to a remote host drops the local start's failure; a start refused for the SSH host is said at that field", async ({
    app: { page },
  }) => {
    await page.locator('#srv-port').fill(String(busy.port));
    await page.getByTestId('start-server').click();
    await page.getByTestId('server-failure').waitFor({ timeout: 10_000 });
    await page.locator('input[name="where"][value="ssh"]').check();
    expect(await page.getByTestId('server-failure').count()).toBe(0);
    await page.getByTestId('start-server').click();
    const hostError = page.locator('#srv-sshHost-error');
    await expect.poll(() => hostError.innerText()).toBe('SSH host: give an alias from ~/.ssh/config or user@host.');
    expect(await page.locator('#srv-sshHost').getAttribute('aria-invalid')).toBe('true');
    // Said once, at the field: not again below the form.
    expect(await page.getByTestId('view-server').locator('p.error').count()).toBe(0);
    await page.getByTestId('remote-host').scrollIntoViewIfNeeded();
    await shot(page, '43-ssh-start-error-at-field', false);
    await page.locator('#srv-sshHost').fill('gpu-box');
    await expect.poll(() => hostError.count()).toBe(0);
    await page.locator('#srv-sshHost').fill('');
    await page.locator('input[name="where"][value="local"]').check();
    await page.locator('#srv-port').fill('');
  }, 30_000);
});
