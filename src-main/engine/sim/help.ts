/** Help text for `sim --help` / `sim serve --help`: the sim flags, fault switches and profiles. */
import { BUILTIN_PROFILES, DEFAULT_PROFILE } from './profile';

export function simHelp(): string {
  const profiles = Object.values(BUILTIN_PROFILES)
    .map((p) => `  ${p.name.padEnd(28)}${p.name === DEFAULT_PROFILE ? '(default) ' : ''}${p.description}`)
    .join('\n');
  return `Usage: speedmatrix sim serve [MODEL] [vllm flags] [sim flags]

A simulated vLLM server: same command line, logs, HTTP API and metrics as \`vllm serve\`, with a
calibrated performance model. MODEL defaults to the profile's model. vLLM flags keep their meaning
(--host, --port, --api-key, --served-model-name, --max-model-len 256K (262,144; 256k is 256,000), --gpu-memory-utilization,
--max-num-seqs, --max-num-batched-tokens, --kv-cache-dtype, --enable-prefix-caching / --no-enable-prefix-caching,
--block-size, --stream-interval, -tp, ...). Unknown flags print a warning and are ignored.

Sim flags:
  --sim-profile NAME|FILE              profile name (below) or a profile JSON file (fields: src-main/engine/sim/README.md)
  --sim-speed X                        run the clock X times faster (default: 1)
  --sim-log-style 1|2|3                KV capacity log line of vLLM generation 1, 2 (default) or 3
  --sim-load-seconds S                 wall seconds of model loading (connections refused meanwhile)
  --sim-slow-start S                   same as --sim-load-seconds
  --sim-debug                          serve ground truth on GET /sim/requests
  --sim-seed N                         seed for generated text and natural output lengths
  --sim-reasoning-tokens N             the first N tokens of each chat response are reasoning text (default: the profile's)
  --sim-step-jitter F                  a noisy server: step times vary slowly by about ±F (0.1 = ±10%)

Fault switches:
  --sim-loop-after N                   from token N a request repeats a fixed passage
  --sim-loop-contexts LIST             ...only requests whose prompt is near one of these sizes (8K,65536)
  --sim-loop-concurrency LIST          ...only when this many requests are in flight at token N (16,64)
  --sim-crash-after-seconds S          exit with an engine error S seconds after startup (exit code 1)
  --sim-crash-after-tokens N           the same after N generated tokens in total
  --sim-hang-after-tokens N            stop producing tokens after N in total; connections stay open
  --sim-error-event-after-tokens N     a stream gets an error event at token N, then [DONE]
  --sim-malformed-chunk-after-tokens N a stream gets one chunk of broken JSON at token N
  --sim-500-share F                    answer HTTP 500 to a share F of completion requests

Profiles (each JSON's "notes" say where its figures come from and show its KV budget's arithmetic:
card x utilization - weights - peak activation - non-torch (- CUDA graphs) / KV bytes per token, in whole blocks;
src-main/engine/sim/README.md, "KV cache budget"):
${profiles}
`;
}
