/**
 * The Server view's SSH options, in real Chromium against the real core: an option that would
 * run a program on this machine is refused at the field (and Start waits), a harmless one passes.
 */
import { describe, expect } from 'vitest';
import { webTest as it } from '../helpers/fixtures';
import { hasChromium } from './browser';

describe.skipIf(!hasChromium)('SSH options in the Server view', () => {
  it('ProxyCommand is refused at the SSH options field and Start waits; Port passes', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.locator('input[name="where"][value="ssh"]').check();
    await page.locator('#srv-sshHost').fill('gpu-box');
    const field = page.locator('#srv-sshOptions');
    await field.fill('Port=2222\nProxyCommand=touch /tmp/x');
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const msgId = await field.getAttribute('aria-errormessage');
    expect(await page.locator(`#${msgId}`).innerText()).toMatch(
      /^SSH options: "ProxyCommand=touch \/tmp\/x" is not taken from the app; it passes on only Port, User,/,
    );
    expect(await page.getByTestId('start-server').isDisabled()).toBe(true);
    await field.fill('Port=2222');
    await expect.poll(() => field.getAttribute('aria-invalid')).not.toBe('true');
    await expect.poll(() => page.getByTestId('start-server').isEnabled()).toBe(true);
  });
});
