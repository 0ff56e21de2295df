/**
 * The phases of a server's start, timed by the supervisor: each phase ends at the log line vLLM
 * prints when it is done (format strings in vLLM's vllm/v1/worker/gpu_model_runner.py, V0's vllm/worker/model_runner.py,
 * compilation/monitor.py, v1/worker/gpu_worker.py, v1/core/kv_cache_utils.py), and the last one
 * when the server answers /health and the probe. A phase whose line never came (an engine
 * version that does not print it, `--enforce-eager` with no compilation or graph capture) is left
 * out: its time counts in the next phase that was seen, never guessed. Pure: lines and times in.
 */
import { START_PHASES, type StartPhase, type StartPhaseId } from '#shared/session/start-phases';
import { stripAnsi } from './log-parse';

/** The line that ends each logged phase ('ready' ends at the supervisor's own readiness check). */
const PHASE_END: ReadonlyArray<[Exclude<StartPhaseId, 'ready'>, RegExp]> = [
  ['process', /Starting to load model /],
  // V1 "Model loading took X GiB ...", V0 "Loading model weights took X GB".
  ['weights', /Model loading took |Loading model weights took /],
  // "torch.compile takes X s in total" (older), "torch.compile took ...", "torch.compile and initial
  // profiling/warmup run together took ...".
  ['compile', /torch\.compile .*(?:takes|took) [\d.]+ s in total/],
  // V1's memory profile, then its KV line; V0's block count.
  ['kv-profile', /Available KV cache memory: |GPU KV cache size: |# (?:GPU|cuda|rocm|xpu|hpu|tpu|neuron) blocks: /i],
  ['graph-capture', /Graph capturing finished /],
];

/** Which phase a log line ends, if any. */
export function startPhaseEndedBy(raw: string): StartPhaseId | null {
  const line = stripAnsi(raw);
  return PHASE_END.find(([, re]) => re.test(line))?.[0] ?? null;
}

const order = (p: StartPhaseId) => START_PHASES.indexOf(p);

/**
 * When each phase ended, in milliseconds since the launch. A phase's line printed by several
 * workers (tensor parallel ranks) ends it at the last of them, until a later phase has begun;
 * a line out of order (a later phase already seen) is ignored.
 */
export class StartPhaseClock {
  private readonly ends = new Map<StartPhaseId, number>();
  private latest = -1;

  /** Note one line that arrived `atMs` after the launch. */
  line(raw: string, atMs: number): void {
    const phase = startPhaseEndedBy(raw);
    if (phase === null || order(phase) < this.latest) return;
    this.ends.set(phase, atMs);
    this.latest = order(phase);
  }

  /** The phases seen, ended by readiness at `readyMs`: each phase's seconds since the end of the one before. */
  phases(readyMs: number): StartPhase[] {
    const ends: Array<[StartPhaseId, number]> = [...this.ends.entries(), ['ready', readyMs]];
    ends.sort((a, b) => order(a[0]) - order(b[0]));
    let before = 0;
    return ends.map(([phase, at]) => {
      const seconds = Math.max(0, at - before) / 1000;
      before = Math.max(before, at);
      return { phase, seconds };
    });
  }
}
