/** The supervisor's states (src-main/engine/server/supervisor.ts): the one definition, used by the supervisor, the core and the page. */
export type ServerState = 'idle' | 'starting' | 'ready' | 'stopping' | 'exited' | 'failed';
