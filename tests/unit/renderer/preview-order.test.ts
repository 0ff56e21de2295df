/**
 * The Server view's command preview follows the form as it is now: main answers each edit's
 * preview in its own time, and a reply for an older form that arrives last must not replace the
 * newer one (the page would show warnings for a form the person has since changed).
 */
import { describe, expect, it } from 'vitest';
import type { CommandPreview } from '#shared/ipc/contract';
import type { ServerForm } from '#shared/ipc/forms';
import type { SpeedMatrixBridge } from '#shared/ipc/channels';

type Reply = { ok: true; data: CommandPreview };
const pending: Array<{ form: ServerForm; answer: (r: Reply) => void }> = [];
const previewOf = (form: ServerForm): Reply => ({
  ok: true,
  data: { display: `model ${form.model}`, argv: [], env: {}, powershell: null, platformNote: null, warnings: [] },
});

// The page's bridge, answering only when the test says so; installed before the store loads it.
(globalThis as { window?: unknown }).window = {
  speedmatrix: {
    previewServer: (form: ServerForm) => new Promise<Reply>((answer) => pending.push({ form, answer })),
  } as unknown as SpeedMatrixBridge,
  location: { search: '', protocol: 'file:' },
};

describe('the server command preview', () => {
  it('keeps the newest edit’s preview when an older reply arrives after it', async () => {
    const { appStore } = await import('../../../src-renderer/src/store/index');
    const { updateServerForm } = await import('../../../src-renderer/src/store/actions');
    appStore.getState().setServerDefaults({ model: 'first' } as ServerForm);
    updateServerForm({ model: 'older' });
    updateServerForm({ model: 'newer' });
    expect(pending.map((p) => p.form.model)).toEqual(['older', 'newer']);
    pending[1].answer(previewOf(pending[1].form));
    await new Promise((r) => setTimeout(r, 0));
    expect(appStore.getState().preview?.display).toBe('model newer');
    pending[0].answer(previewOf(pending[0].form));
    await new Promise((r) => setTimeout(r, 0));
    expect(appStore.getState().preview?.display).toBe('model newer');
  });
});
