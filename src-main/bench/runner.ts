/**
 * The run itself, inside the worker process: warm-ups, prefill scouts and decode cells in
 * the plan's order, each result sent to the parent as it completes. A failing cell never
 * stops the run; a server that dies is reported (the parent may restart it) and the run goes on.
 */
import { fmtContext } from '../report/format';
import type { ServerTarget } from '../server/target';
import type { DecodeCell, PrefillResult } from '../session/schema';
import { unmeasuredCell, unmeasuredPrefill } from './cells';
import { Interrupt, ServerClock } from './clock';
import { type DecodeCellOutput, idleGate, runDecodeCell } from './decode';
import { type BenchHttp, createHttp, isHealthy } from './http';
import { cellKey, estimateSeconds, readinessTimeoutSeconds } from './plan';
import { extrapolatedPrompt, promptTag, type SizedPrompt, sizedPrompt } from './prompts';
import { ChatStream } from './stream';
import type { BenchEvent, PlanStep, RunPlan } from './types';

export interface RunnerHost {
  emit(e: BenchEvent): void;
  /** Tell the parent the server died; resolves with a restarted target, or null. */
  serverDown(message: string): Promise<ServerTarget | null>;
}

export interface RunnerResult {
  cancelled: boolean;
  /** Set when the server went down and was not restarted: the run stopped there (resume later). */
  serverLost: string | null;
  checksUnavailable: string[];
  notes: string[];
}

/** Margin kept below max_model_len for a prompt's own output tokens and template rounding. */
const FIT_MARGIN = 8;

export class Runner {
  readonly stopSignal = new Interrupt();
  private http: BenchHttp;
  private clock: ServerClock;
  private prompts = new Map<number, SizedPrompt>();
  /** Contexts whose scout ran on the current server (its prefix cache holds them). */
  private warmed = new Set<number>();
  private checksUnavailable: string[] = [];
  private notes: string[] = [];
  private serverGone: string | null = null;
  private targeting: 'exact' | 'estimate';

  constructor(
    private target: ServerTarget,
    private readonly plan: RunPlan,
    private readonly doneCells: ReadonlySet<string>,
    private readonly donePrefill: ReadonlySet<number>,
    private readonly host: RunnerHost,
  ) {
    this.http = createHttp(target);
    this.clock = new ServerClock(plan.config.simSpeed);
    this.targeting = plan.config.tokenTargeting;
    if (!target.metricsAvailable)
      this.checksUnavailable.push(
        'No /metrics with queue gauges: idle and readiness gates used client-side signals only, average active requests are counted by the client, and waiting requests could not be seen.',
      );
    if (this.targeting === 'exact' && !target.tokenizeAvailable) {
      this.targeting = 'estimate';
      this.checksUnavailable.push('No /tokenize: prompt sizes were estimated from characters per token (real prompt tokens are recorded from usage).');
    }
  }

  stop(): void {
    this.stopSignal.fire();
  }

  async run(): Promise<RunnerResult> {
    const steps = this.pendingSteps();
    const decodeTotal = this.plan.steps.filter((s) => s.kind === 'decode').length;
    let decodeIndex = decodeTotal - steps.filter((s) => s.kind === 'decode').length;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      if (this.stopSignal.fired || this.serverGone) break;
      const eta = estimateSeconds(steps.slice(i), this.plan.config);
      try {
        if (step.kind === 'warmup') await this.warmup();
        else if (step.kind === 'prefill') await this.prefillStep(step.context, step.measured && !this.donePrefill.has(step.context));
        else {
          decodeIndex++;
          this.host.emit({ type: 'cell-start', context: step.context, concurrency: step.concurrency, index: decodeIndex, total: decodeTotal, etaSeconds: eta });
          const { cell, window } = await this.decodeStep(step.context, step.concurrency);
          this.host.emit({ type: 'cell-done', cell, window, index: decodeIndex, total: decodeTotal, etaSeconds: estimateSeconds(steps.slice(i + 1), this.plan.config) });
        }
      } catch (e) {
        // Never let one step end the run; say what happened.
        this.host.emit({ type: 'log', level: 'error', message: `${describeStep(step)} failed: ${(e as Error).message}` });
        if (step.kind === 'decode')
          this.host.emit({ type: 'cell-done', cell: unmeasuredCell(step.context, step.concurrency, 'error', (e as Error).message), index: decodeIndex, total: decodeTotal, etaSeconds: eta });
        if (step.kind === 'prefill' && step.measured && !this.donePrefill.has(step.context))
          this.host.emit({ type: 'prefill-done', result: unmeasuredPrefill(step.context, 'error', (e as Error).message) });
      }
    }
    return { cancelled: this.stopSignal.fired, serverLost: this.stopSignal.fired ? null : this.serverGone, checksUnavailable: this.checksUnavailable, notes: this.notes };
  }

  /** The plan's steps minus what is already done (resume); scouts only where they still serve. */
  private pendingSteps(): PlanStep[] {
    const steps = this.plan.steps;
    const out: PlanStep[] = [];
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i];
      if (s.kind === 'decode') {
        if (!this.doneCells.has(cellKey(s))) out.push(s);
        continue;
      }
      if (s.kind === 'prefill') {
        const measuredPending = s.measured && !this.donePrefill.has(s.context);
        // A scout still serves when a pending decode cell of its context follows it directly.
        let servesDecode = false;
        for (let j = i + 1; j < steps.length; j++) {
          const n = steps[j];
          if (n.kind !== 'decode' || n.context !== s.context) break;
          if (!this.doneCells.has(cellKey(n))) servesDecode = true;
        }
        if (measuredPending || servesDecode) out.push(s);
        continue;
      }
      out.push(s); // warm-ups run on resume too: the server may be a fresh one
    }
    return out;
  }

  private requestBody(messages: SizedPrompt['messages'], maxTokens: number): string {
    return JSON.stringify({
      model: this.http.model,
      messages,
      max_tokens: maxTokens,
      stream: true,
      ignore_eos: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
  }

  /** The prompt of a context, sized once and shared by its scout and its decode cells (prefix cache). */
  private async promptFor(context: number): Promise<SizedPrompt> {
    const have = this.prompts.get(context);
    if (have) return have;
    const mml = this.plan.maxModelLen;
    const hasDecode = this.plan.config.contexts.includes(context);
    const room = mml === null ? context : mml - (hasDecode ? this.plan.config.maxOutputTokens : 1) - FIT_MARGIN;
    const target = Math.min(context, room);
    this.host.emit({ type: 'phase', phase: 'calibration', message: context > 0 ? `sizing the ${fmtContext(context)} prompt` : 'sizing the short prompt (context 0)', context });
    const tag = promptTag(this.plan.config.runTag, `CTX ${context}`);
    let p: SizedPrompt;
    try {
      p = await sizedPrompt(this.http, this.targeting, tag, target);
    } catch (e) {
      if (this.targeting !== 'exact') throw e;
      p = await extrapolatedPrompt(this.http, tag, target);
      const note = `The ${fmtContext(context)} prompt could not be sized through /tokenize (${(e as Error).message}); its size was extrapolated from smaller prompts. The real prompt tokens are recorded from usage.`;
      this.notes.push(note);
      this.host.emit({ type: 'log', level: 'warn', message: note });
    }
    this.prompts.set(context, p);
    return p;
  }

  /** One streamed request to its end (or a timeout); returns the stream. */
  private oneRequest(body: string, timeoutSeconds: number, cancelAfterSeconds?: number): Promise<ChatStream> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      let unsub: () => void = () => undefined;
      const s = new ChatStream(this.http, {
        body,
        onEnd: (st) => {
          if (timer) clearTimeout(timer);
          unsub();
          resolve(st);
        },
      });
      const limit = cancelAfterSeconds ?? timeoutSeconds;
      timer = setTimeout(() => {
        if (cancelAfterSeconds !== undefined) s.cancel();
        else s.failWith(`No answer within ${timeoutSeconds} s.`);
      }, this.clock.wallMs(limit));
      unsub = this.stopSignal.onFire(() => s.cancel());
    });
  }

  /** METHOD.md warm-ups, each with its own tag: a short decode, a small prefill, a few seconds of decode at C=1. */
  private async warmup(): Promise<void> {
    this.host.emit({ type: 'phase', phase: 'warmup', message: 'warming up the server' });
    const tag = (n: number) => promptTag(this.plan.config.runTag, `WARMUP ${n}`);
    const shortDecode = await this.oneRequest(this.requestBody((await sizedPrompt(this.http, this.targeting, tag(1), 0)).messages, 32), 120);
    await this.afterRequest(shortDecode, 'the first warm-up request');
    if (this.stopSignal.fired || this.serverGone) return;
    const small = await sizedPrompt(this.http, this.targeting, tag(2), 2048);
    await this.afterRequest(await this.oneRequest(this.requestBody(small.messages, 1), 120), 'the prefill warm-up');
    if (this.stopSignal.fired || this.serverGone) return;
    const c1 = await this.oneRequest(this.requestBody((await sizedPrompt(this.http, this.targeting, tag(3), 0)).messages, this.plan.config.maxOutputTokens), 120, 3);
    await this.afterRequest(c1, 'the decode warm-up');
    await idleGate({ http: this.http, engine: this.target.engineKind, metrics: this.target.metricsAvailable, clock: this.clock }, this.stopSignal, 30);
  }

  /** Logs a failed warm-up or scout; notices a dead server. */
  private async afterRequest(s: ChatStream, what: string): Promise<void> {
    if (s.outcome !== 'error') return;
    this.host.emit({ type: 'log', level: 'warn', message: `${what} failed: ${s.error}` });
    if (s.connectionLost) await this.handleServerDown(s.error ?? 'connection lost');
  }

  private async prefillStep(context: number, measured: boolean): Promise<void> {
    if (measured) this.host.emit({ type: 'prefill-start', context });
    const down = await this.checkServer();
    if (down) {
      if (measured) this.host.emit({ type: 'prefill-done', result: unmeasuredPrefill(context, 'error', down) });
      return;
    }
    let prompt: SizedPrompt;
    try {
      prompt = await this.promptFor(context);
    } catch (e) {
      if (measured) this.host.emit({ type: 'prefill-done', result: unmeasuredPrefill(context, 'error', (e as Error).message) });
      else this.host.emit({ type: 'log', level: 'warn', message: `Could not size the ${fmtContext(context)} prompt: ${(e as Error).message}` });
      return;
    }
    await idleGate({ http: this.http, engine: this.target.engineKind, metrics: this.target.metricsAvailable, clock: this.clock }, this.stopSignal, 30);
    const s = await this.oneRequest(this.requestBody(prompt.messages, 1), readinessTimeoutSeconds(context) * 2);
    if (s.outcome === 'done') this.warmed.add(context);
    if (!measured) {
      await this.afterRequest(s, `the ${fmtContext(context)} cache warm-up`);
      return;
    }
    let result: PrefillResult;
    if (s.outcome === 'cancelled') result = unmeasuredPrefill(context, 'cancelled', 'the run was stopped');
    else if (s.outcome === 'error') {
      result = unmeasuredPrefill(context, 'error', s.error);
      await this.afterRequest(s, `the ${fmtContext(context)} prefill scout`);
    } else {
      const firstAt = s.firstTokenAt >= 0 ? s.firstTokenAt : s.endedAt;
      const ttft = this.clock.seconds(firstAt - s.sentAt);
      const promptTokens = s.promptTokens >= 0 ? s.promptTokens : null;
      result = {
        context,
        status: 'valid',
        reason: promptTokens === null ? 'the server reported no usage.prompt_tokens; throughput unknown' : null,
        promptTokens,
        ttftSeconds: ttft,
        tokensPerSecond: promptTokens !== null && ttft > 0 ? promptTokens / ttft : null,
        measuredAt: new Date().toISOString(),
      };
    }
    this.host.emit({ type: 'prefill-done', result });
  }

  private async decodeStep(context: number, concurrency: number): Promise<{ cell: DecodeCell; window: DecodeCellOutput['window'] }> {
    const down = await this.checkServer();
    if (down) return { cell: unmeasuredCell(context, concurrency, 'error', down), window: null };
    // A restarted (or resumed) server has a cold cache: scout first so TTFT excludes prefill.
    if (context > 0 && !this.warmed.has(context)) await this.prefillStep(context, false);
    if (this.stopSignal.fired) return { cell: unmeasuredCell(context, concurrency, 'cancelled', 'the run was stopped during this cell'), window: null };
    const prompt = await this.promptFor(context);
    const out = await runDecodeCell({
      http: this.http,
      engine: this.target.engineKind,
      metrics: this.target.metricsAvailable,
      clock: this.clock,
      context,
      concurrency,
      body: this.requestBody(prompt.messages, this.plan.config.maxOutputTokens),
      windowSeconds: this.plan.config.secondsPerMeasurement,
      stallSeconds: this.plan.config.stallSeconds,
      readinessTimeoutSeconds: readinessTimeoutSeconds(context),
      stop: this.stopSignal,
      emit: (e) => this.host.emit(e),
    });
    if (out.cell.status === 'error' && (out.connectionLost || !(await isHealthy(this.http)))) {
      out.cell.reason = `${out.cell.reason ?? 'error'} (the server went down during this cell)`;
      await this.handleServerDown(out.cell.reason);
    }
    return { cell: out.cell, window: out.window };
  }

  /** Before a step: null when the server answers, else why not (without waiting long). */
  private async checkServer(): Promise<string | null> {
    if (!this.serverGone) return null;
    if (await isHealthy(this.http)) {
      this.serverGone = null;
      return null;
    }
    return this.serverGone;
  }

  private async handleServerDown(message: string): Promise<void> {
    if (this.stopSignal.fired) return;
    this.host.emit({ type: 'phase', phase: 'idle-gate', message: 'the server went down; waiting for a restart' });
    const restarted = await this.host.serverDown(message);
    if (restarted) {
      await this.http.agent.close().catch(() => undefined);
      this.target = restarted;
      this.http = createHttp(restarted);
      this.warmed.clear(); // the new server's cache is cold: scouts re-warm it
      this.notes.push(`The server died (${message}) and was restarted; the run continued.`);
    } else {
      // Nothing more can be measured: the run stops after this step, leaving the rest for a resume.
      this.serverGone = `The server is not reachable any more (${message}); this cell was not run.`;
    }
  }

  async close(): Promise<void> {
    await this.http.agent.close().catch(() => undefined);
  }
}

function describeStep(s: PlanStep): string {
  if (s.kind === 'warmup') return 'The warm-up';
  if (s.kind === 'prefill') return `The ${fmtContext(s.context)} prefill scout`;
  return `Cell ${fmtContext(s.context)} × ${s.concurrency}`;
}

