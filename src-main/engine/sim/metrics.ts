import { readdirSync, readFileSync } from 'node:fs';

/**
 * Prometheus text exposition in vLLM's shape: `vllm:` names, labels sorted alphabetically
 * (`engine`, `model_name`, ...), values printed like Python's prometheus_client (`1.0`, `1.048576e+06`).
 */

/**
 * The simulator's own series beside vLLM's: simulated seconds of schedule its engine gave up because the host
 * did not let it run (engine.ts MAX_CATCH_UP_MS). A client marks what it measured meanwhile.
 */
export const SIM_LAG_METRIC = 'speedmatrix:sim_lag_seconds_total';

/**
 * The simulator's own wait for a CPU: wall seconds its threads were ready to run but not running (Linux schedstat's
 * run delay). On the client's machine the busy CPUs that delay the client delay the server too, by this much; a
 * client adds it to its own delay of a measurement (bench/client-delay.ts). Absent where the OS does not say.
 */
export const SIM_CPU_WAIT_METRIC = 'speedmatrix:sim_cpu_wait_seconds_total';

/** Wall seconds all of this process's threads have waited for a CPU so far; null where the OS does not say. */
export function processCpuWaitSeconds(): number | null {
  try {
    let ns = 0;
    for (const task of readdirSync('/proc/self/task'))
      ns += Number(readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ')[1]) || 0;
    return ns / 1e9;
  } catch {
    return null;
  }
}

/** Python prometheus_client's floatToGoString. */
export function promFloat(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  let s: string;
  if (Number.isInteger(v) && Math.abs(v) < 1e16) s = `${v}.0`;
  else if (v !== 0 && Math.abs(v) < 1e-4) s = v.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  else s = String(v);
  const dot = s.indexOf('.');
  if (v > 0 && dot > 6 && !s.includes('e')) {
    const mantissa = `${s[0]}.${s.slice(1, dot)}${s.slice(dot + 1)}`.replace(/[0.]+$/, '');
    return `${mantissa}e+0${dot - 1}`;
  }
  return s;
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function labelText(labels: Record<string, string>): string {
  const keys = Object.keys(labels).sort();
  return `{${keys.map((k) => `${k}="${esc(labels[k])}"`).join(',')}}`;
}

export class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly buckets: number[]) {
    this.counts = new Array(buckets.length).fill(0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    const b = this.buckets;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]) {
        this.counts[i]++;
        return;
      }
    }
  }
}

/** vLLM's build_1_2_5_buckets(max). */
export function buckets125(max: number): number[] {
  const out: number[] = [];
  for (let e = 1; ; e *= 10) {
    for (const m of [1, 2, 5]) {
      if (m * e > max) return out;
      out.push(m * e);
    }
  }
}

export const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0,
  640.0, 2560.0,
];
export const ITL_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
];
export const LATENCY_BUCKETS = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0,
  7680.0,
];

/** Builds one exposition text. */
export class Exposition {
  private out: string[] = [];
  constructor(private readonly base: Record<string, string>) {}

  private head(name: string, type: string, help: string): void {
    this.out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }

  gauge(name: string, help: string, value: number, extra: Record<string, string> = {}): this {
    this.head(name, 'gauge', help);
    this.out.push(`${name}${labelText({ ...this.base, ...extra })} ${promFloat(value)}`);
    return this;
  }

  counter(name: string, help: string, series: { labels?: Record<string, string>; value: number }[]): this {
    this.head(name, 'counter', help);
    for (const s of series)
      this.out.push(`${name}_total${labelText({ ...this.base, ...s.labels })} ${promFloat(s.value)}`);
    return this;
  }

  histogram(name: string, help: string, h: Histogram): this {
    this.head(name, 'histogram', help);
    let cum = 0;
    h.buckets.forEach((b, i) => {
      cum += h.counts[i];
      this.out.push(`${name}_bucket${labelText({ ...this.base, le: promFloat(b) })} ${promFloat(cum)}`);
    });
    this.out.push(`${name}_bucket${labelText({ ...this.base, le: '+Inf' })} ${promFloat(h.count)}`);
    this.out.push(`${name}_count${labelText(this.base)} ${promFloat(h.count)}`);
    this.out.push(`${name}_sum${labelText(this.base)} ${promFloat(h.sum)}`);
    return this;
  }

  info(name: string, help: string, labels: Record<string, string>): this {
    this.head(name, 'gauge', help);
    this.out.push(`${name}${labelText({ ...labels, engine: this.base.engine })} 1.0`);
    return this;
  }

  text(): string {
    return `${this.out.join('\n')}\n`;
  }
}
