/**
 * The messages between a decode cell and the threads that hold its streams (stream-shards.ts, and
 * stream-shard-main.ts on the thread's side). Running counts do not travel as messages: each thread
 * writes them into shared memory (cell-load.ts, TALLY) that the cell reads as they change.
 */
import type { LoadInput, LoadOutcome } from './cell-load';
import type { ClientHealthReading } from './client-health';
import type { HttpSettings } from './http';
import type { BenchEvent } from './types';

/** What a thread starts with: its client, its share of the cell, and where it keeps its counts. */
export interface ShardSetup {
  http: HttpSettings;
  load: Omit<LoadInput, 'http' | 'clock' | 'emit'>;
  clockSpeed: number;
  /** TALLY_SLOTS float64s the thread writes and the cell reads. */
  tally: SharedArrayBuffer;
}

export type ToShard =
  | { type: 'open'; t0: number }
  | { type: 'close'; t1: number; tokens: number }
  | { type: 'stalls' }
  | { type: 'finish' };

export type FromShard =
  /** The thread's share ended the cell (a loop, the server gone, failures over the limit): stop the others. */
  | { type: 'stop' }
  | { type: 'event'; event: BenchEvent }
  | { type: 'health'; reading: ClientHealthReading }
  | { type: 'outcome'; outcome: LoadOutcome };
