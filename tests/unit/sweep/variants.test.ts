import { describe, expect, it } from 'vitest';
import { VaryError, applyVariant, checkAxes, parseVary, variantsOf } from '#shared/sweep/variants';

describe('sweep variants', () => {
  it('parses a flag and its values', () => {
    expect(parseVary('--max-num-seqs=64,128,256')).toEqual({ flag: '--max-num-seqs', values: ['64', '128', '256'] });
    expect(parseVary('kv-cache-dtype=auto, fp8')).toEqual({ flag: '--kv-cache-dtype', values: ['auto', 'fp8'] });
  });

  it.each([
    ['--max-num-seqs', /FLAG=V1,V2/],
    ['=64', /FLAG=V1,V2/],
    ['--max num=1', /not a flag name/],
    ['--max-num-seqs=64,,128', /give every value/],
    ['--max-num-seqs=64,64', /given twice/],
  ])('refuses %j with the reason', (spec, why) => {
    expect(() => parseVary(spec)).toThrow(VaryError);
    expect(() => parseVary(spec)).toThrow(why);
  });

  it('combines axes, the first varying slowest, with readable labels and file-safe names', () => {
    const v = variantsOf([parseVary('--max-num-seqs=64,128'), parseVary('--kv-cache-dtype=auto,fp8')]);
    expect(v.map((x) => x.label)).toEqual([
      '--max-num-seqs=64 --kv-cache-dtype=auto',
      '--max-num-seqs=64 --kv-cache-dtype=fp8',
      '--max-num-seqs=128 --kv-cache-dtype=auto',
      '--max-num-seqs=128 --kv-cache-dtype=fp8',
    ]);
    expect(v[1].slug).toBe('max-num-seqs-64_kv-cache-dtype-fp8');
    expect(variantsOf([parseVary('--served-model-name=a/b c')])[0].slug).toBe('served-model-name-a-b-c');
    expect(() => variantsOf([parseVary('--max-num-seqs=1'), parseVary('--max-num-seqs=2')])).toThrow(/once/);
  });

  it('replaces a flag already in the command, in either spelling, and appends a new one', () => {
    const [v] = variantsOf([
      parseVary('--max-num-seqs=16'),
      parseVary('--gpu-memory-utilization=0.8'),
      parseVary('--kv-cache-dtype=fp8'),
    ]);
    const argv = [
      'vllm',
      'serve',
      'Qwen/Qwen3-8B',
      '--max-num-seqs',
      '256',
      '--gpu-memory-utilization=0.9',
      '--port',
      '8000',
    ];
    expect(applyVariant(argv, v)).toEqual([
      'vllm',
      'serve',
      'Qwen/Qwen3-8B',
      '--max-num-seqs',
      '16',
      '--gpu-memory-utilization=0.8',
      '--port',
      '8000',
      '--kv-cache-dtype',
      'fp8',
    ]);
    expect(argv[4]).toBe('256');
  });
});

describe('launch variants typed in the app', () => {
  it('gives the axes when every field is right', () => {
    expect(
      checkAxes([
        { flag: '--max-num-seqs', values: '4, 16' },
        { flag: 'kv-cache-dtype', values: 'auto,fp8' },
      ]),
    ).toEqual({
      axes: [
        { flag: '--max-num-seqs', values: ['4', '16'] },
        { flag: '--kv-cache-dtype', values: ['auto', 'fp8'] },
      ],
      problems: [],
    });
  });

  it('names each wrong field with the reason, and keeps only the right axes', () => {
    const r = checkAxes([
      { flag: '--max-num-seqs', values: '4,16' },
      { flag: '--max num', values: '1' },
      { flag: '--max-num-seqs', values: '8' },
      { flag: '--kv-cache-dtype', values: 'auto,,fp8' },
      { flag: '--port', values: '8000,8001' },
      { flag: '', values: '' },
      { flag: '--dtype', values: 'half, half' },
      { flag: 'dtype', values: 'float16' },
    ]);
    expect(r.axes).toEqual([{ flag: '--max-num-seqs', values: ['4', '16'] }]);
    expect(r.problems).toEqual([
      { axis: 1, field: 'flag', message: '"--max num" is not a flag name' },
      { axis: 2, field: 'flag', message: '--max-num-seqs is varied already: give all its values there' },
      { axis: 3, field: 'values', message: 'give every value, separated by commas' },
      { axis: 4, field: 'flag', message: '--port is set by SpeedMatrix for every variant' },
      { axis: 5, field: 'flag', message: 'give the flag to vary, e.g. --max-num-seqs' },
      { axis: 5, field: 'values', message: 'give its values, e.g. 4, 16' },
      { axis: 6, field: 'values', message: 'half is given twice' },
      { axis: 7, field: 'flag', message: '--dtype is varied already: give all its values there' },
    ]);
  });
});
