/**
 * Step-time jitter for a deliberately noisy server (`--sim-step-jitter F`): every scheduler step's
 * modelled time is multiplied by a factor that wanders slowly around 1, so throughput varies from
 * second to second the way a shared or thermally throttled card's does. The factor is the
 * exponential of a mean-reverting (AR(1)) Gaussian process with a standard deviation of F and a
 * correlation time of CORRELATION_SECONDS of server time: neighbouring steps are alike, which is
 * what makes a decode cell's samples correlated (docs/adaptive-precision.md).
 */
import { rng } from './text';

/** Server seconds over which the jitter forgets itself (its AR(1) time constant). */
export const CORRELATION_SECONDS = 0.5;

export class StepJitter {
  private x = 0;
  private readonly uniform: () => number;

  constructor(
    /** Standard deviation of the log factor (0.1 = about ±10% step times). */
    private readonly sd: number,
    seed: number,
  ) {
    this.uniform = rng(seed ^ 0x5bd1e995);
  }

  /** The factor for a step of `seconds` server seconds (1 when the jitter is off). */
  factor(seconds: number): number {
    if (this.sd <= 0) return 1;
    const rho = Math.exp(-Math.max(0, seconds) / CORRELATION_SECONDS);
    this.x = rho * this.x + Math.sqrt(1 - rho * rho) * this.gaussian();
    // Mean-one log-normal: the jitter spreads step times without slowing the server on average.
    return Math.exp(this.sd * this.x - (this.sd * this.sd) / 2);
  }

  private gaussian(): number {
    const u = Math.max(1e-12, this.uniform());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }
}
