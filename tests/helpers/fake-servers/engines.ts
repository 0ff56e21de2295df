/**
 * Small in-process HTTP servers that answer like SGLang, llama.cpp and TGI do (routes and JSON
 * shapes as documented in shared/docs/VLLM.md), for attach-mode probing tests.
 */
import { createServer, type Server } from 'node:http';

export interface FakeEngine {
  url: string;
  close(): Promise<void>;
}

type Routes = Record<string, (body: string) => { status?: number; json?: unknown; text?: string }>;

export async function serveRoutes(routes: Routes): Promise<FakeEngine> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const route = routes[`${req.method} ${req.url}`] ?? routes[req.url ?? ''];
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: 'Not Found' }));
        return;
      }
      const r = route(body);
      res.writeHead(r.status ?? 200, { 'content-type': r.text !== undefined ? 'text/plain' : 'application/json' });
      res.end(r.text ?? JSON.stringify(r.json ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const models =
  (id: string, owner: string, extra: Record<string, unknown> = {}) =>
  () => ({
    json: { object: 'list', data: [{ id, object: 'model', created: 1, owned_by: owner, ...extra }] },
  });

/** SGLang: /get_server_info with max_total_num_tokens (KV budget) and context_length. */
export const sglang = () =>
  serveRoutes({
    '/v1/models': models('Qwen/Qwen3-8B', 'sglang', { root: 'Qwen/Qwen3-8B', max_model_len: 40960 }),
    '/health': () => ({ text: '' }),
    '/get_server_info': () => ({
      json: {
        version: '0.4.9.post2',
        max_total_num_tokens: 612345,
        max_running_requests: 4096,
        context_length: 40960,
        server_args: { model_path: 'Qwen/Qwen3-8B' },
      },
    }),
    '/version': () => ({ json: { version: '0.4.9.post2' } }),
    '/metrics': () => ({
      text: 'sglang:num_running_reqs{model_name="Qwen/Qwen3-8B"} 0.0\nsglang:num_queue_reqs{model_name="Qwen/Qwen3-8B"} 0.0\n',
    }),
  });

/** llama.cpp llama-server: /props with per-slot n_ctx and total_slots; /health {"status":"ok"}. */
export const llamacpp = () =>
  serveRoutes({
    '/v1/models': models('qwen3-8b-q4_k_m.gguf', 'llamacpp'),
    '/health': () => ({ json: { status: 'ok' } }),
    '/props': () => ({
      json: {
        default_generation_settings: { n_ctx: 8192, params: {} },
        total_slots: 4,
        model_path: '/models/qwen3-8b-q4_k_m.gguf',
        build_info: 'b6000-abcdef12',
      },
    }),
  });

/** TGI: /info with max_total_tokens and max_batch_total_tokens. */
export const tgi = () =>
  serveRoutes({
    '/v1/models': models('meta-llama/Llama-3.1-8B-Instruct', 'tgi'),
    '/health': () => ({ text: '' }),
    '/info': () => ({
      json: {
        model_id: 'meta-llama/Llama-3.1-8B-Instruct',
        max_total_tokens: 8192,
        max_input_tokens: 8191,
        max_batch_total_tokens: 262144,
        version: '3.3.4',
        sha: '9f38d9305f3bd0d1ad1ef0b7a8a1dd7a0e8b1c2d',
      },
    }),
    '/metrics': () => ({ text: 'tgi_queue_size 0\ntgi_batch_current_size 0\n' }),
  });

/** An old vLLM: no kv_cache_size_tokens, and the rank label of tensor parallelism. */
export const vllmTp = (apiKey?: string) =>
  serveRoutes({
    '/v1/models': () =>
      apiKey
        ? { status: 401, json: { error: 'Unauthorized' } }
        : {
            json: {
              object: 'list',
              data: [{ id: 'llama', object: 'model', owned_by: 'vllm', root: '/models/llama', max_model_len: 131072 }],
            },
          },
    '/health': () => ({ text: '' }),
    '/version': () => ({ json: { version: '0.9.2+rocm631' } }),
    '/metrics': () => ({
      text: [
        'vllm:num_requests_running{engine="0",model_name="llama"} 0.0',
        'vllm:cache_config_info{block_size="32",engine="0",num_gpu_blocks="2.048e+04",rank="1"} 1.0',
        'vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="1.048576e+06",rank="0"} 1.0',
      ].join('\n'),
    }),
    'POST /tokenize': () => ({ json: { count: 1, max_model_len: 131072, tokens: [9906] } }),
  });
