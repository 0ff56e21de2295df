/** Each fault switch of the simulator does what it says, observed over HTTP from the real process. */
import { describe, expect } from 'vitest';
import { simTest as it } from '../../helpers/fixtures';
import { chatBody, detectLoop, filler, getJson, post } from './client';

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const text = (r: Awaited<ReturnType<typeof post>>) =>
  r.events.map((e) => e.json?.choices?.[0]?.delta?.content ?? e.json?.choices?.[0]?.text ?? '').join('');

/** The benchmark's own loop rule (docs/METHOD.md): it needs ~4,096 characters of repeats, ~1,500 tokens of the passage. */
const loops = detectLoop;

describe('loop', () => {
  it('--sim-loop-after N: from token N the text repeats one passage; before, it is varied', async ({ launchSim }) => {
    const h = await launchSim({ profile: 'firehose', args: ['--sim-loop-after', '100'] });
    const r = await post(`${h.url}/v1/chat/completions`, chatBody('go', { max_tokens: 2000, ignore_eos: true }));
    const t = text(r);
    expect(loops(t)).toBe(true);
    expect(loops(t.slice(0, 300))).toBe(false);
    expect(r.events.at(-2)!.json!.usage.completion_tokens).toBe(2000);
  });

  it('--sim-loop-contexts picks requests by prompt size', async ({ launchSim }) => {
    const h = await launchSim({
      profile: 'firehose',
      debug: true,
      args: ['--sim-loop-after', '50', '--sim-loop-contexts', '8K'],
    });
    const big = await post(
      `${h.url}/v1/chat/completions`,
      chatBody(filler(8150), { max_tokens: 1900, ignore_eos: true }),
    );
    const small = await post(
      `${h.url}/v1/chat/completions`,
      chatBody(filler(100), { max_tokens: 1900, ignore_eos: true }),
    );
    expect(loops(text(big))).toBe(true);
    expect(loops(text(small))).toBe(false);
    const truth = (await getJson(`${h.url}/sim/requests`)).json.requests;
    expect(truth.map((t: any) => t.looped)).toEqual([true, false]);
  });

  it('--sim-loop-concurrency picks by requests in flight when token N is reached', async ({ launchSim }) => {
    // Speed 8: token 200 comes ~180 ms after the start, long after both requests of the pair arrived.
    const h = await launchSim({ speed: 8, args: ['--sim-loop-after', '200', '--sim-loop-concurrency', '2'] });
    const pair = await Promise.all(
      [0, 1].map((i) =>
        post(`${h.url}/v1/chat/completions`, chatBody(`pair ${i}`, { max_tokens: 1900, ignore_eos: true })),
      ),
    );
    const alone = await post(`${h.url}/v1/chat/completions`, chatBody('alone', { max_tokens: 1900, ignore_eos: true }));
    expect(pair.map((r) => loops(text(r)))).toEqual([true, true]);
    expect(loops(text(alone))).toBe(false);
  });
});

describe('crash, hang, slow start', () => {
  it('--sim-crash-after-tokens: the stream gets the engine error, /health turns 503, the server exits 1', async ({
    launchSim,
  }) => {
    const h = await launchSim({ speed: 20, args: ['--sim-crash-after-tokens', '100'] });
    const r = await post(`${h.url}/v1/chat/completions`, chatBody('go', { max_tokens: 1000, ignore_eos: true }));
    expect(r.events.at(-1)!.data).toBe('[DONE]');
    expect(r.events.at(-2)!.json!.error).toMatchObject({ type: 'EngineDeadError', code: 500 });
    expect(r.events.at(-3)!.json!.usage.completion_tokens).toBe(100);
    expect((await fetch(`${h.url}/health`)).status).toBe(503);
    const late = await post(`${h.url}/v1/completions`, { prompt: 'x', max_tokens: 1 });
    expect(late.status).toBe(500);
    expect(await h.exited).toBe(1);
    expect(plain(h.logs())).toMatch(/EngineCore encountered a fatal error/);
  });

  it('--sim-crash-after-seconds: exits 1 about S seconds after startup', async ({ launchSim }) => {
    const h = await launchSim({ profile: 'firehose', args: ['--sim-crash-after-seconds', '1'] });
    const t0 = Date.now();
    expect(await h.exited).toBe(1);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('--sim-hang-after-tokens: tokens stop, the connection stays open, /health stays 200', async ({ launchSim }) => {
    const h = await launchSim({ speed: 20, debug: true, args: ['--sim-hang-after-tokens', '30'] });
    const pending = post(`${h.url}/v1/chat/completions`, chatBody('go', { max_tokens: 500, ignore_eos: true }), {
      abortAfterEvents: 1000,
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    const rec = (await getJson(`${h.url}/sim/requests`)).json.requests[0];
    expect(rec.completion_tokens).toBe(30);
    expect(rec.finish_reason).toBeNull();
    await h.stop();
    const r = await pending;
    expect(r.events.at(-1)?.data).not.toBe('[DONE]');
  });

  it('--sim-slow-start S: connections are refused for S seconds', async ({ launchSim }) => {
    const t0 = Date.now();
    await launchSim({ profile: 'firehose', loadSeconds: 0, args: ['--sim-slow-start', '2'] });
    expect(Date.now() - t0).toBeGreaterThan(2000);
  });
});

describe('stream faults', () => {
  it('--sim-error-event-after-tokens: one error event, then [DONE], status 200', async ({ launchSim }) => {
    const h = await launchSim({
      profile: 'firehose',
      args: ['--sim-error-event-after-tokens', '20', '--stream-interval', '1'],
    });
    const r = await post(`${h.url}/v1/chat/completions`, chatBody('go', { max_tokens: 100, ignore_eos: true }));
    expect(r.status).toBe(200);
    expect(r.events.at(-1)!.data).toBe('[DONE]');
    const err = r.events.at(-2)!.json!;
    expect(err.error).toMatchObject({ type: 'InternalServerError', code: 500 });
    expect(err.error.message).toMatch(/error/);
    expect(r.events.at(-3)!.json!.usage.completion_tokens).toBe(20);
  });

  it('--sim-malformed-chunk-after-tokens: one chunk of broken JSON, then the stream goes on', async ({ launchSim }) => {
    const h = await launchSim({ profile: 'firehose', args: ['--sim-malformed-chunk-after-tokens', '16'] });
    const r = await post(`${h.url}/v1/chat/completions`, chatBody('go', { max_tokens: 64, ignore_eos: true }));
    const broken = r.events.filter((e) => e.data !== '[DONE]' && !e.json);
    expect(broken).toHaveLength(1);
    expect(r.events.at(-1)!.data).toBe('[DONE]');
    expect(r.events.at(-2)!.json!.usage.completion_tokens).toBe(64);
  });

  it('--sim-500-share 0.5: exactly half the requests answer 500 with an error body', async ({ launchSim }) => {
    const h = await launchSim({ profile: 'firehose', args: ['--sim-500-share', '0.5'] });
    const rs = [];
    for (let i = 0; i < 10; i++) rs.push(await post(`${h.url}/v1/completions`, { prompt: 'x', max_tokens: 2 }));
    expect(rs.filter((r) => r.status === 500)).toHaveLength(5);
    expect(rs.filter((r) => r.status === 200)).toHaveLength(5);
    const bad = JSON.parse(rs.find((r) => r.status === 500)!.body);
    expect(bad.error).toMatchObject({ type: 'InternalServerError', code: 500 });
  });
});
