/**
 * The run itself, inside the worker process: warm-ups, prefill scouts and decode cells in
 * the plan's order, each result sent to the parent as it completes. A failing cell never
 * stops the run; a server that dies is reported (the parent may restart it) and the run goes on.
 */
import { fmtContext } from '#shared/report/format';
import type { ServerTarget } from '../server/target';
import type { DecodeCell, PrefillResult } from '#shared/session/schema';
import { unmeasuredCell, unmeasuredPrefill } from './cells';
import { Interrupt, ServerClock } from './clock';
import { type DecodeCellOutput, idleGate, runDecodeCell } from './decode';
import { type BenchHttp, createHttp, isHealthy } from './http';
import { estimateSeconds, pendingSteps } from './plan';
import { readinessTimeoutSeconds } from './readiness';
import { chatBody, type DecodeBodies } from './request-bodies';
import { sharedPrefixText } from './load-prompts';
import { extrapolatedPrompt, promptTag, type SizedPrompt, sizedPrompt } from './prompts';
import { type PrefillPoint, scoutDeadline } from './scout-deadline';
import { type PrefillMeasurement, prefillStop } from './precision';
import { CLIENT_DELAY_MEASUREMENTS, clientDelayed, lessDelayed, unreliablePrefill } from './client-delay';
import { mean } from '#shared/mean';
import { ChatStream } from './stream';
import { type ServerDelayedMeasurement, keptClientDelay, realServerHere, simulatorDelay } from './prefill-delay';
import { describeStep, joinReasons } from './step-words';
import type { BenchEvent, PlanStep, RunPlan } from './types';

interface RunnerHost {
  emit(e: BenchEvent): void;
  /** Tell the parent the server died; resolves with a restarted target, or null. */
  serverDown(message: string): Promise<ServerTarget | null>;
}

interface RunnerResult {
  cancelled: boolean;
  /** Set when the server went down and was not restarted: the run stopped there (resume later). */
  serverLost: string | null;
  checksUnavailable: string[];
  notes: string[];
}

/** Margin kept below max_model_len for a prompt's own output tokens and template rounding. */
const FIT_MARGIN = 8;
/** Warm-ups (docs/method.md): a short decode of this many tokens, a prefill at this context, a hidden decode this long. */
const WARMUP_DECODE_TOKENS = 64;
const WARMUP_PREFILL_CONTEXT = 8 * 1024;
const WARMUP_DECODE_SECONDS = 3;

/** A cold prefill measurement and how much this machine held it back (prefill-delay.ts). */
type TimedPrefill = ServerDelayedMeasurement & { s: ChatStream };

export class Runner {
  readonly stopSignal = new Interrupt();
  private http: BenchHttp;
  private clock: ServerClock;
  private prompts = new Map<number, SizedPrompt>();
  private prefixText: Promise<string> | null = null;
  /** Contexts whose scout ran on the current server (its prefix cache holds them). */
  private warmed = new Set<number>();
  /** Cold prefills measured on this run (warm-up and first scouts): what later scouts' deadlines are scaled from. */
  private prefillPoints: PrefillPoint[] = [];
  /** Decode windows measured on this run (server seconds): an adaptive run's ETA expects windows like them. */
  private windows: number[] = [];
  private checksUnavailable: string[] = [];
  private notes: string[] = [];
  private serverGone: string | null = null;
  private targeting: 'exact' | 'estimate';

  constructor(
    private target: ServerTarget,
    private readonly plan: RunPlan,
    /** Measurements already done (resume), by repetitionKey. */
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
    if (this.targeting === 'exact' && target.tokenize === null) {
      this.targeting = 'estimate';
      this.checksUnavailable.push(
        'No /tokenize: prompt sizes were estimated from characters per token (real prompt tokens are recorded from usage).',
      );
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
      const eta = estimateSeconds(steps.slice(i), this.plan.config, this.prefillPoints, this.windows);
      try {
        if (step.kind === 'warmup') await this.warmup();
        else if (step.kind === 'prefill')
          await this.prefillStep(step.context, step.measured && !this.donePrefill.has(step.context));
        else {
          decodeIndex++;
          const { repetition } = step;
          this.host.emit({
            type: 'cell-start',
            context: step.context,
            concurrency: step.concurrency,
            repetition,
            index: decodeIndex,
            total: decodeTotal,
            etaSeconds: eta,
          });
          const { cell, window } = await this.decodeStep(step.context, step.concurrency);
          if (cell.windowSeconds !== null) this.windows.push(cell.windowSeconds);
          this.host.emit({
            type: 'cell-done',
            cell,
            repetition,
            window,
            index: decodeIndex,
            total: decodeTotal,
            etaSeconds: estimateSeconds(steps.slice(i + 1), this.plan.config, this.prefillPoints, this.windows),
          });
        }
      } catch (e) {
        // Never let one step end the run; say what happened.
        this.host.emit({
          type: 'log',
          level: 'error',
          message: `${describeStep(step)} failed: ${(e as Error).message}`,
        });
        if (step.kind === 'decode')
          this.host.emit({
            type: 'cell-done',
            cell: unmeasuredCell(step.context, step.concurrency, 'error', (e as Error).message),
            repetition: step.repetition,
            index: decodeIndex,
            total: decodeTotal,
            etaSeconds: eta,
          });
        if (step.kind === 'prefill' && step.measured && !this.donePrefill.has(step.context))
          this.host.emit({
            type: 'prefill-done',
            result: unmeasuredPrefill(step.context, 'error', (e as Error).message),
          });
      }
    }
    return {
      cancelled: this.stopSignal.fired,
      serverLost: this.stopSignal.fired ? null : this.serverGone,
      checksUnavailable: this.checksUnavailable,
      notes: this.notes,
    };
  }

  /** The plan's steps minus what is already done (resume); scouts only where they still serve. */
  private pendingSteps(): PlanStep[] {
    return pendingSteps(this.plan.steps, this.doneCells, this.donePrefill);
  }

  private requestBody(messages: SizedPrompt['messages'], maxTokens: number): string {
    return chatBody(this.http.model, messages, maxTokens);
  }

  /** The shared prefix's text (--shared-prefix, docs/method.md), sized once on this server; '' without one. */
  private sharedPrefix(): Promise<string> {
    this.prefixText ??= sharedPrefixText(this.http, this.plan.config.sharedPrefixTokens);
    return this.prefixText;
  }

  /**
   * A decode cell's request body: max_tokens drawn per request from --output-len (seeded by the cell, so a run
   * repeats), else the same for every request.
   */
  private decodeBody(messages: SizedPrompt['messages'], context: number, concurrency: number): DecodeBodies {
    const { outputLength, maxOutputTokens } = this.plan.config;
    if (!outputLength) return this.requestBody(messages, maxOutputTokens);
    return { model: this.http.model, messages, maxOutputTokens, outputLength, seed: context * 1009 + concurrency };
  }

  /** The prompt of a context, sized once and shared by its scout and its decode cells (prefix cache). */
  private async promptFor(context: number): Promise<SizedPrompt> {
    const have = this.prompts.get(context);
    if (have) return have;
    const target = this.promptTarget(context);
    this.host.emit({
      type: 'phase',
      phase: 'calibration',
      message: context > 0 ? `sizing the ${fmtContext(context)} prompt` : 'sizing the short prompt (context 0)',
      context,
    });
    const tag = promptTag(this.plan.config.runTag, `CTX ${context}`);
    let p: SizedPrompt;
    try {
      p = await sizedPrompt(this.http, this.targeting, tag, target, await this.sharedPrefix());
    } catch (e) {
      if (this.targeting !== 'exact') throw e;
      p = await extrapolatedPrompt(this.http, tag, target, await this.sharedPrefix());
      const note = `The ${fmtContext(context)} prompt could not be sized through /tokenize (${(e as Error).message}); its size was extrapolated from smaller prompts. The real prompt tokens are recorded from usage.`;
      this.notes.push(note);
      this.host.emit({ type: 'log', level: 'warn', message: note });
    }
    this.prompts.set(context, p);
    return p;
  }

  /** The prompt size of a context: the context, trimmed so the prompt and its output fit the server. */
  private promptTarget(context: number): number {
    const mml = this.plan.maxModelLen;
    const hasDecode = this.plan.config.contexts.includes(context);
    const room = mml === null ? context : mml - (hasDecode ? this.plan.config.maxOutputTokens : 1) - FIT_MARGIN;
    return Math.min(context, room);
  }

  /**
   * One streamed request to its end (or a timeout); returns the stream. `decodeSeconds` cuts it
   * that long after its first token; `timeClientDelay` records the client's own delay (client-delay.ts).
   */
  private oneRequest(
    body: string,
    timeoutSeconds: number,
    opts: { decodeSeconds?: number; timeClientDelay?: boolean } = {},
  ): Promise<ChatStream> {
    const { decodeSeconds, timeClientDelay } = opts;
    return new Promise((resolve) => {
      const timers: NodeJS.Timeout[] = [];
      let unsub: () => void = () => undefined;
      const s = new ChatStream(this.http, {
        body,
        timeClientDelay,
        onEnd: (st) => {
          for (const t of timers) clearTimeout(t);
          unsub();
          resolve(st);
        },
      });
      timers.push(
        setTimeout(() => s.failWith(`No answer within ${timeoutSeconds} s.`), this.clock.wallMs(timeoutSeconds)),
      );
      if (decodeSeconds !== undefined) {
        // Look for the first token every 50 ms (server-clock tenths at most), then let it decode.
        const poll = () => {
          if (s.outcome !== 'running') return;
          if (s.firstTokenAt >= 0) timers.push(setTimeout(() => s.cancel(), this.clock.wallMs(decodeSeconds)));
          else timers.push(setTimeout(poll, Math.min(50, this.clock.wallMs(0.1))));
        };
        poll();
      }
      unsub = this.stopSignal.onFire(() => s.cancel());
    });
  }

  /** A prompt of (about) `context` tokens under `tag`, trimmed so it fits the server with `maxTokens` of output. */
  private async fittingPrompt(tag: string, context: number, maxTokens: number): Promise<SizedPrompt> {
    const mml = this.plan.maxModelLen;
    const target = mml === null ? context : Math.max(0, Math.min(context, mml - maxTokens - FIT_MARGIN));
    return sizedPrompt(this.http, this.targeting, tag, target, await this.sharedPrefix());
  }

  /** The largest context with a decode cell to run (0 when there is none). */
  private largestRunnableContext(): number {
    let largest = 0;
    for (const c of this.plan.cells) if (c.action === 'run') largest = Math.max(largest, c.context);
    return largest;
  }

  /**
   * Warm-ups before anything is measured (docs/method.md, "Warm-ups"), each under its own tag so
   * none touches a measured prompt's cache entry: a short decode, an 8K prefill, and a hidden
   * decode at concurrency 1 at the largest runnable context after its own cold scout, so that
   * one-off costs of long prompts (kernel choice, graph capture) are paid before the first
   * measured prefill.
   */
  private async warmup(): Promise<void> {
    this.host.emit({ type: 'phase', phase: 'warmup', message: 'warming up the server' });
    const tag = (label: string) => promptTag(this.plan.config.runTag, `WARMUP ${label}`);
    const ok = () => !this.stopSignal.fired && !this.serverGone;
    const short = await this.fittingPrompt(tag('DECODE'), 0, WARMUP_DECODE_TOKENS);
    await this.afterRequest(
      await this.oneRequest(this.requestBody(short.messages, WARMUP_DECODE_TOKENS), 120),
      'the short decode warm-up',
    );
    if (!ok()) return;
    const prefill = await this.fittingPrompt(tag('PREFILL'), WARMUP_PREFILL_CONTEXT, 1);
    // Not a point for scout deadlines: a short prefill's time is mostly noise, and the first one may carry one-off costs.
    await this.afterRequest(
      await this.oneRequest(this.requestBody(prefill.messages, 1), readinessTimeoutSeconds(WARMUP_PREFILL_CONTEXT) * 2),
      'the 8K prefill warm-up',
    );
    if (!ok()) return;
    const largest = this.largestRunnableContext();
    const maxOut = this.plan.config.maxOutputTokens;
    const long = largest > 0 ? await this.fittingPrompt(tag(`CTX ${largest}`), largest, maxOut) : short;
    if (largest > 0) {
      // A long cold prompt on a slow card needs minutes: its deadline scales like a scout's.
      const limit = Math.max(
        readinessTimeoutSeconds(largest) * 2,
        scoutDeadline(largest, this.prefillPoints, this.plan.config.scoutDeadline).deadlineSeconds,
      );
      this.host.emit({ type: 'phase', phase: 'warmup', message: `warming up at ${fmtContext(largest)} context` });
      const scout = await this.oneRequest(this.requestBody(long.messages, 1), limit);
      this.notePrefill(scout);
      await this.afterRequest(scout, `the ${fmtContext(largest)} scout warm-up`);
      if (!ok()) return;
    }
    // The scout filled the cache, so the first token comes within a readiness deadline (a hung server is not waited on for long).
    const decode = await this.oneRequest(this.requestBody(long.messages, maxOut), readinessTimeoutSeconds(largest), {
      decodeSeconds: WARMUP_DECODE_SECONDS,
    });
    await this.afterRequest(decode, 'the decode warm-up');
    await this.idle();
  }

  /** Logs a failed warm-up or scout; notices a dead server. */
  private async afterRequest(s: ChatStream, what: string): Promise<void> {
    if (s.outcome !== 'error') return;
    this.host.emit({ type: 'log', level: 'warn', message: `${what} failed: ${s.error}` });
    if (s.connectionLost) await this.handleServerDown(s.error ?? 'connection lost');
  }

  /** Keep a cold prefill's time to first token (server seconds) for later scouts' deadlines. */
  private notePrefill(s: ChatStream): void {
    if (s.outcome !== 'done' || s.firstTokenAt < 0 || s.promptTokens <= 0) return;
    this.prefillPoints.push({ tokens: s.promptTokens, seconds: this.clock.seconds(s.firstTokenAt - s.sentAt) });
  }

  private async prefillStep(context: number, measured: boolean): Promise<void> {
    // A cold scout's deadline scales with the prefill speed measured so far (slow cards need minutes at 256K).
    const cold = !this.warmed.has(context);
    const { expectedSeconds, deadlineSeconds } = scoutDeadline(
      context,
      this.prefillPoints,
      this.plan.config.scoutDeadline,
    );
    if (measured) this.host.emit({ type: 'prefill-start', context, expectedSeconds, deadlineSeconds });
    const down = await this.checkServer();
    if (down) {
      if (measured) this.host.emit({ type: 'prefill-done', result: unmeasuredPrefill(context, 'error', down) });
      return;
    }
    let prompt: SizedPrompt;
    try {
      prompt = await this.promptFor(context);
    } catch (e) {
      if (measured)
        this.host.emit({ type: 'prefill-done', result: unmeasuredPrefill(context, 'error', (e as Error).message) });
      else
        this.host.emit({
          type: 'log',
          level: 'warn',
          message: `Could not size the ${fmtContext(context)} prompt: ${(e as Error).message}`,
        });
      return;
    }
    await this.idle();
    if (!measured) {
      const s = await this.oneRequest(this.requestBody(prompt.messages, 1), deadlineSeconds);
      if (cold) this.notePrefill(s);
      if (s.outcome === 'done') this.warmed.add(context);
      await this.afterRequest(s, `the ${fmtContext(context)} cache warm-up`);
      return;
    }
    const first = await this.coldPrefill(prompt, context, 'PREFILL', deadlineSeconds);
    const { s, retakes } = first;
    if (cold) this.notePrefill(s);
    if (s.outcome === 'done') this.warmed.add(context);
    let result: PrefillResult;
    if (s.outcome === 'cancelled') result = unmeasuredPrefill(context, 'cancelled', 'the run was stopped');
    else if (s.outcome === 'error') {
      result = unmeasuredPrefill(context, 'error', s.error);
      await this.afterRequest(s, `the ${fmtContext(context)} prefill scout`);
    } else {
      const firstAt = s.firstTokenAt >= 0 ? s.firstTokenAt : s.endedAt;
      const ttft = this.clock.seconds(firstAt - s.sentAt);
      const promptTokens = s.promptTokens >= 0 ? s.promptTokens : null;
      const client = keptClientDelay([first], retakes, (ms) => this.clock.seconds(ms));
      const unreliable = unreliablePrefill(client.worstShare, null, realServerHere(this.target));
      result = {
        context,
        status: 'valid',
        reason: joinReasons(
          promptTokens === null ? 'the server reported no usage.prompt_tokens; throughput unknown' : null,
          unreliable ?? client.note,
        ),
        promptTokens,
        ttftSeconds: ttft,
        tokensPerSecond: promptTokens !== null && ttft > 0 ? promptTokens / ttft : null,
        measuredAt: new Date().toISOString(),
        ...client.delay,
        ...(unreliable ? { unreliable } : {}),
      };
      if (this.plan.config.precision !== null && result.tokensPerSecond !== null)
        result = await this.refinePrefill(result, [first], retakes, deadlineSeconds);
    }
    this.host.emit({ type: 'prefill-done', result });
  }

  /**
   * A cold prefill, measured again under fresh tags while the client's own machine delayed it by more than 1% of its
   * time to first token (client-delay.ts), at most three measurements in all; the least delayed is kept.
   */
  private async coldPrefill(
    prompt: SizedPrompt,
    context: number,
    label: string,
    deadlineSeconds: number,
  ): Promise<TimedPrefill & { retakes: number }> {
    const timed = async (p: SizedPrompt): Promise<TimedPrefill> => {
      const before = await simulatorDelay(this.http, this.target);
      const s = await this.oneRequest(this.requestBody(p.messages, 1), deadlineSeconds, { timeClientDelay: true });
      const after = before === null ? null : await simulatorDelay(this.http, this.target);
      const serverDelayMs =
        before === null || after === null
          ? 0
          : this.clock.wallMs(Math.max(0, after.lagSeconds - before.lagSeconds)) +
            Math.max(0, after.cpuWaitSeconds - before.cpuWaitSeconds) * 1000;
      const clientDelayMs = s.clientDelayMs === null ? null : s.clientDelayMs + serverDelayMs;
      return { s, ttftMs: s.firstTokenAt - s.sentAt, clientDelayMs, serverDelayMs };
    };
    let kept = await timed(prompt);
    let retakes = 0;
    while (
      kept.s.outcome === 'done' &&
      kept.s.firstTokenAt >= 0 &&
      clientDelayed(kept) &&
      retakes + 1 < CLIENT_DELAY_MEASUREMENTS &&
      !this.stopSignal.fired
    ) {
      retakes++;
      const fresh = await this.freshPrompt(context, `${label} RETAKE ${retakes}`);
      await this.idle();
      const again = await timed(fresh);
      if (again.s.outcome !== 'done' || again.s.firstTokenAt < 0) break;
      kept = lessDelayed(kept, again);
    }
    return { ...kept, retakes };
  }

  /** A prompt of a context's size under a fresh tag, so no cache entry helps it. */
  private async freshPrompt(context: number, label: string): Promise<SizedPrompt> {
    const tag = promptTag(this.plan.config.runTag, `CTX ${context} ${label}`);
    return sizedPrompt(this.http, this.targeting, tag, this.promptTarget(context), await this.sharedPrefix());
  }

  /** Waits until the server is idle (decode.ts idleGate); whether it got there. */
  private idle(): Promise<boolean> {
    return idleGate(
      { http: this.http, engine: this.target.engineKind, metrics: this.target.metricsAvailable, clock: this.clock },
      this.stopSignal,
      30,
    );
  }

  /**
   * With --precision (docs/adaptive-precision.md): the prefill is measured again, each time a cold prompt of the same
   * size under a fresh tag (so no cache entry helps), until the mean throughput is known to ±P% or the cap. The
   * result's figures become the means; a repeat that fails ends the repeats and is said in the reason.
   */
  private async refinePrefill(
    first: PrefillResult,
    kept: TimedPrefill[],
    firstRetakes: number,
    deadlineSeconds: number,
  ): Promise<PrefillResult> {
    const relative = this.plan.config.precision as number;
    // Repeats may take as long as the shortest decode window (precision.ts, prefillStop).
    const maxSeconds = this.plan.config.minSecondsPerMeasurement;
    const measured: PrefillMeasurement[] = [
      { tokensPerSecond: first.tokensPerSecond as number, ttftSeconds: first.ttftSeconds as number },
    ];
    let retakes = firstRetakes;
    let failed: string | null = null;
    let stop = prefillStop(measured, relative, maxSeconds);
    while (!stop && !this.stopSignal.fired) {
      const label = `PREFILL ${measured.length + 1}`;
      const prompt = await this.freshPrompt(first.context, label);
      await this.idle();
      const m = await this.coldPrefill(prompt, first.context, label, deadlineSeconds);
      const s = m.s;
      if (s.outcome !== 'done' || s.firstTokenAt < 0 || s.promptTokens <= 0) {
        failed = s.outcome === 'cancelled' ? null : (s.error ?? 'no first token or no usage');
        break;
      }
      retakes += m.retakes;
      kept.push(m);
      const ttftSeconds = this.clock.seconds(s.firstTokenAt - s.sentAt);
      measured.push({ tokensPerSecond: s.promptTokens / ttftSeconds, ttftSeconds });
      stop = prefillStop(measured, relative, maxSeconds);
    }
    // Ended by a failure or a stop: the interval of what was measured, as at the cap.
    const precision = stop ?? prefillStop(measured, relative, maxSeconds, measured.length)!;
    const client = keptClientDelay(kept, retakes, (ms) => this.clock.seconds(ms));
    const unreliable = unreliablePrefill(
      client.worstShare,
      { ...precision, target: relative },
      realServerHere(this.target),
    );
    const usage = first.promptTokens === null ? 'the server reported no usage.prompt_tokens; throughput unknown' : null;
    const { unreliable: _firstVerdict, ...rest } = first;
    return {
      ...rest,
      reason: joinReasons(
        failed
          ? `measurement ${measured.length + 1} failed, so the figure is the mean of ${measured.length}: ${failed}`
          : null,
        usage,
        unreliable ?? client.note,
      ),
      ttftSeconds: mean(measured.map((m) => m.ttftSeconds)),
      tokensPerSecond: mean(measured.map((m) => m.tokensPerSecond)),
      precision,
      ...client.delay,
      ...(unreliable ? { unreliable } : {}),
    };
  }

  private async decodeStep(
    context: number,
    concurrency: number,
  ): Promise<{ cell: DecodeCell; window: DecodeCellOutput['window'] }> {
    const down = await this.checkServer();
    if (down) return { cell: unmeasuredCell(context, concurrency, 'error', down), window: null };
    // A restarted (or resumed) server has a cold cache: scout first so TTFT excludes prefill.
    if (context > 0 && !this.warmed.has(context)) await this.prefillStep(context, false);
    if (this.stopSignal.fired)
      return {
        cell: unmeasuredCell(context, concurrency, 'cancelled', 'the run was stopped during this cell'),
        window: null,
      };
    const prompt = await this.promptFor(context);
    const out = await runDecodeCell({
      http: this.http,
      engine: this.target.engineKind,
      metrics: this.target.metricsAvailable,
      clock: this.clock,
      context,
      concurrency,
      body: this.decodeBody(prompt.messages, context, concurrency),
      windowSeconds: this.plan.config.secondsPerMeasurement,
      precision:
        this.plan.config.precision === null
          ? null
          : { relative: this.plan.config.precision, minSeconds: this.plan.config.minSecondsPerMeasurement },
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
