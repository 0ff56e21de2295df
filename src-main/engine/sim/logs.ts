/**
 * vLLM-shaped log lines: `(APIServer pid=1234) INFO 08-19 14:58:41 [api_server.py:1639] message`,
 * the process prefix in ANSI colour where vLLM colours it (see `colours`). Uvicorn's own lines
 * (`INFO:     ...`) have no prefix.
 */
type Level = 'INFO' | 'WARNING' | 'ERROR' | 'DEBUG';

const pad = (n: number) => String(n).padStart(2, '0');

function stamp(d = new Date()): string {
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * Whether vLLM colours a stream's lines, as its current releases decide (vllm/utils/system_utils.py,
 * `_add_prefix`): on a terminal, or with VLLM_LOGGING_COLOR=1; never with NO_COLOR or
 * VLLM_LOGGING_COLOR=0. A log redirected to a file holds no colour codes.
 */
export function colours(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR || env.VLLM_LOGGING_COLOR === '0') return false;
  return env.VLLM_LOGGING_COLOR === '1' || stream.isTTY === true;
}

/** `text` in the ANSI colour `code` when `on`. */
export const paint = (on: boolean, code: string, text: string): string => (on ? `${code}${text}\x1b[0;0m` : text);

export class Logger {
  constructor(
    private readonly write: (s: string) => void,
    private readonly apiPid: number,
    public enginePid: number,
    /** Whether the stream written to takes colour (`colours`). */
    readonly colour = false,
  ) {}

  /** A line from the API server process. */
  api(level: Level, source: string, msg: string): void {
    this.write(
      `${paint(this.colour, '\x1b[1;36m', `(APIServer pid=${this.apiPid})`)} ${level} ${stamp()} [${source}] ${msg}\n`,
    );
  }

  /** A line from the engine core process. */
  engine(level: Level, source: string, msg: string): void {
    this.write(
      `${paint(this.colour, '\x1b[1;33m', `(EngineCore_DP0 pid=${this.enginePid})`)} ${level} ${stamp()} [${source}] ${msg}\n`,
    );
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
