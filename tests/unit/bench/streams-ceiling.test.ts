/** How many streams a run may ask for: the client's pool, and the open files the OS allows. */
import { describe, expect, it } from 'vitest';
import { filesNeeded, MAX_STREAMS, openFileLimit, streamsCeilingReason } from '../../../src-main/engine/bench/http';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63704                63704                processes
Max open files            20000                20000                files
`;

describe('streamsCeilingReason', () => {
  it('holds up to 4,096 streams when the OS allows the files', () => {
    expect(MAX_STREAMS).toBe(4096);
    expect(streamsCeilingReason([1, 1024, 4096], 1_000_000)).toBeNull();
  });

  it('refuses a concurrency just above the pool, naming it and the most it holds', () => {
    expect(streamsCeilingReason([64, 4097], 1_000_000)).toBe(
      '--concurrency 4097 is more than this client can hold at once (4096 streams, one connection each); choose at most 4096.',
    );
  });

  it('refuses a concurrency whose sockets do not fit the open-file limit, at the exact boundary', () => {
    const need = filesNeeded(1024);
    expect(need).toBeGreaterThan(1024);
    expect(streamsCeilingReason([1024], need)).toBeNull();
    const r = streamsCeilingReason([16, 1024], need - 1);
    expect(r).toContain(`--concurrency 1024 needs about ${need} open files`);
    expect(r).toContain(`only ${need - 1} (ulimit -n)`);
    expect(r).toContain(`ulimit -n ${need}`);
    expect(r).toContain(`choose at most ${need - 1 - filesNeeded(0)}.`);
  });

  it('checks nothing about files where the OS does not say, and nothing with no limit', () => {
    expect(streamsCeilingReason([4096], null)).toBeNull();
    expect(streamsCeilingReason([4096], Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('openFileLimit', () => {
  it('reads the soft open-file limit from /proc/self/limits text', () => {
    expect(openFileLimit(LIMITS)).toBe(20000);
    expect(openFileLimit(LIMITS.replace('20000                20000', 'unlimited            unlimited'))).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(openFileLimit('nothing here')).toBeNull();
  });

  it("reads this process's own limit on Linux", () => {
    const own = openFileLimit();
    if (process.platform === 'linux') expect(own).toBeGreaterThan(0);
    else expect(own).toBeNull();
  });
});
