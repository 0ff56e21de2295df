import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StartPhaseClock, startPhaseEndedBy } from '../../../src-main/engine/server/start-phases';
import { startSeconds } from '../../../src-shared/session/start-phases';

const DIR = join(__dirname, '../../fixtures/vllm-startup');

/** The log's lines, each with the time of its own stamp ("MM-DD HH:MM:SS"; Uvicorn's: the line before's). */
function timedLines(file: string): Array<{ line: string; ms: number }> {
  let ms = 0;
  return readFileSync(join(DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      const m = /\b\d\d-\d\d (\d\d):(\d\d):(\d\d)\b/.exec(line);
      if (m) ms = ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000;
      return { line, ms };
    });
}

/** Replays a captured log as the supervisor sees it: launched at the first line, ready at "Application startup complete". */
function replay(file: string) {
  const lines = timedLines(file);
  const launched = lines[0].ms;
  const clock = new StartPhaseClock();
  for (const { line, ms } of lines) clock.line(line, ms - launched);
  const ready = lines.find((l) => l.line.includes('Application startup complete'))!.ms;
  return clock.phases(ready - launched);
}

describe('start phases from captured vLLM startup logs', () => {
  it('V1 with two tensor parallel workers: every phase, each ended by the slower worker', () => {
    expect(replay('v0.10.1-v1-tp2-compiled.log')).toEqual([
      { phase: 'process', seconds: 22 },
      { phase: 'weights', seconds: 38 },
      { phase: 'compile', seconds: 49 },
      { phase: 'kv-profile', seconds: 4 },
      { phase: 'graph-capture', seconds: 12 },
      { phase: 'ready', seconds: 3 },
    ]);
  });

  it('--enforce-eager prints no compilation or graph capture, so those phases are left out', () => {
    const phases = replay('v0.22-v1-enforce-eager.log');
    expect(phases).toEqual([
      { phase: 'process', seconds: 13 },
      { phase: 'weights', seconds: 9 },
      { phase: 'kv-profile', seconds: 4 },
      { phase: 'ready', seconds: 3 },
    ]);
    expect(startSeconds(phases)).toBe(29);
  });

  it('the V0 engine: weights in GB, "# GPU blocks" ends the profiling, no torch.compile line', () => {
    expect(replay('v0.6.3-v0-engine.log').map((p) => p.phase)).toEqual([
      'process',
      'weights',
      'kv-profile',
      'graph-capture',
      'ready',
    ]);
  });

  it('reads the phase lines through ANSI colour and ignores lines that only mention a phase', () => {
    const colour = '\x1b[1;36m(EngineCore_DP0 pid=7)\x1b[0;0m INFO 05-22 16:40:25 [gpu_model_runner.py:5513] ';
    expect(startPhaseEndedBy(`${colour}Model loading took 15.27 GiB memory and 8.412087 seconds`)).toBe('weights');
    expect(startPhaseEndedBy(`${colour}torch.compile took 31.07 s in total`)).toBe('compile');
    expect(
      startPhaseEndedBy(`${colour}torch.compile and initial profiling/warmup run together took 40.10 s in total`),
    ).toBe('compile');
    expect(startPhaseEndedBy(`${colour}Using cache directory: /c for vLLM's torch.compile`)).toBeNull();
    expect(startPhaseEndedBy(`${colour}Capturing CUDA graphs (decode, FULL): 100%`)).toBeNull();
    expect(startPhaseEndedBy('INFO:     Application startup complete.')).toBeNull();
  });

  it('a phase line after a later phase is ignored, and a server with no phase lines has only its ready time', () => {
    const clock = new StartPhaseClock();
    clock.line('Model loading took 1 GiB memory and 1.0 seconds', 5000);
    clock.line('Graph capturing finished in 2 secs, took 0.4 GiB', 8000);
    clock.line('Model loading took 1 GiB memory and 1.0 seconds', 9000);
    expect(clock.phases(10_000)).toEqual([
      { phase: 'weights', seconds: 5 },
      { phase: 'graph-capture', seconds: 3 },
      { phase: 'ready', seconds: 2 },
    ]);
    expect(new StartPhaseClock().phases(2500)).toEqual([{ phase: 'ready', seconds: 2.5 }]);
    expect(startSeconds([])).toBeNull();
  });
});
