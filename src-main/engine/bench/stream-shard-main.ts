/**
 * A thread holding its share of a decode cell's streams (stream-shards.ts): its own connection pool
 * and event loop, so each token is timestamped as it is read, not after other streams' reads. It
 * runs a CellLoad for its workers and answers the cell's messages (shard-protocol.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CellLoad, type LoadOutcome, type StreamRecord } from './cell-load';
import { Interrupt, ServerClock } from './clock';
import { httpFrom } from './http';
import type { FromShard, ShardSetup, ToShard } from './shard-protocol';
import type { ChatStream } from './stream';

/** A stream's record as plain data, to cross to the cell's thread. */
function recordOf(s: ChatStream): StreamRecord {
  return {
    sentAt: s.sentAt,
    firstTokenAt: s.firstTokenAt,
    lastTokenAt: s.lastTokenAt,
    endedAt: s.endedAt,
    tokens: s.tokens,
    outcome: s.outcome,
    error: s.error,
    tokensAtOpen: s.tokensAtOpen,
    tokensAtClose: s.tokensAtClose,
    longestGapMs: s.longestGapMs,
    longestGapEndedAt: s.longestGapEndedAt,
    gapAtCloseMs: s.gapAtCloseMs,
    firstAnswerAt: s.firstAnswerAt,
    reasoningTokens: s.reasoningTokens,
    promptTokens: s.promptTokens,
    responseId: s.responseId,
  };
}

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('stream-shard: start me as a worker thread (stream-shards.ts).');
  const setup = workerData as ShardSetup;
  const post = (m: FromShard) => port.postMessage(m);
  const http = httpFrom(setup.http);
  const stop = new Interrupt();
  stop.onFire(() => post({ type: 'stop' }));
  const load = new CellLoad(
    { ...setup.load, http, clock: new ServerClock(setup.clockSpeed), emit: (event) => post({ type: 'event', event }) },
    stop,
    new Float64Array(setup.tally),
  );
  port.on('message', (m: ToShard) => {
    if (m.type === 'open') load.openWindow(m.t0);
    else if (m.type === 'stalls') load.checkStalls();
    else if (m.type === 'close')
      void load.closeWindow(m.t1, m.tokens).then((reading) => post({ type: 'health', reading }));
    else if (m.type === 'finish')
      void load.finish().then((seen: LoadOutcome) => {
        post({ type: 'outcome', outcome: { ...seen, streams: load.streams.map(recordOf) } });
        void http.agent.destroy();
      });
  });
  load.start();
}

main();
