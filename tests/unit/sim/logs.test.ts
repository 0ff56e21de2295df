/**
 * When the simulated vLLM colours its log prefixes: as vLLM's current releases do, on a terminal
 * or when VLLM_LOGGING_COLOR=1 asks, never with NO_COLOR or VLLM_LOGGING_COLOR=0, so a log
 * redirected to a file holds no colour codes.
 */
import { describe, expect, it } from 'vitest';
import { colours } from '../../../src-main/engine/sim/logs';

describe('the simulator’s log colour', () => {
  it('on a terminal only, unless VLLM_LOGGING_COLOR or NO_COLOR say otherwise', () => {
    expect(colours({ isTTY: true }, {})).toBe(true);
    expect(colours({ isTTY: false }, {})).toBe(false);
    expect(colours({}, {})).toBe(false);
    expect(colours({}, { VLLM_LOGGING_COLOR: '1' })).toBe(true);
    expect(colours({ isTTY: true }, { VLLM_LOGGING_COLOR: '0' })).toBe(false);
    expect(colours({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colours({}, { NO_COLOR: '1', VLLM_LOGGING_COLOR: '1' })).toBe(false);
  });
});
