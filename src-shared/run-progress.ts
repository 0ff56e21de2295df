/** Where a run stands, as the engine reports it and the core and the page show it. */
export type RunPhase = 'idle' | 'starting' | 'prefill' | 'decode' | 'done' | 'cancelled' | 'failed';

/** What a run's progress counts: cells, or measurements when each cell is repeated. */
export type ProgressUnit = 'cell' | 'measurement';
