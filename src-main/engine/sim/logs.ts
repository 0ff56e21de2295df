/**
 * vLLM-shaped log lines: `(APIServer pid=1234) INFO 08-19 14:58:41 [api_server.py:1639] message`,
 * the process prefix wrapped in ANSI colour as vLLM does even when piped. Uvicorn's own lines
 * (`INFO:     ...`) have no prefix.
 */
type Level = 'INFO' | 'WARNING' | 'ERROR' | 'DEBUG';

const pad = (n: number) => String(n).padStart(2, '0');

function stamp(d = new Date()): string {
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export class Logger {
  constructor(
    private readonly write: (s: string) => void,
    private readonly apiPid: number,
    public enginePid: number,
  ) {}

  /** A line from the API server process. */
  api(level: Level, source: string, msg: string): void {
    this.write(`\x1b[1;36m(APIServer pid=${this.apiPid})\x1b[0;0m ${level} ${stamp()} [${source}] ${msg}\n`);
  }

  /** A line from the engine core process. */
  engine(level: Level, source: string, msg: string): void {
    this.write(`\x1b[1;33m(EngineCore_DP0 pid=${this.enginePid})\x1b[0;0m ${level} ${stamp()} [${source}] ${msg}\n`);
  }

  /** Uvicorn's own line, e.g. `INFO:     Application startup complete.` */
  uvicorn(msg: string, level: 'INFO' | 'ERROR' = 'INFO'): void {
    this.write(`${`${level}:`.padEnd(10)}${msg}\n`);
  }

  raw(line: string): void {
    this.write(`${line}\n`);
  }
}

/** 2195456 -> "2,195,456". */
export const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');
