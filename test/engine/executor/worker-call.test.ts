/**
 * A call's last cancel check (worker-call.ts): a cancel that lands after a query's last checkpoint
 * still wins, but not after an import has committed (Committed): its rows are written, so its report
 * is the answer.
 */
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../../engine/executor/settings.js';
import { CANCELLED, type WorkerInit, type WorkerMessage } from '../../../engine/executor/protocol.js';
import { CallRunner, Committed } from '../../../engine/executor/worker-call.js';

function runner(): { calls: CallRunner; posted: WorkerMessage[]; cancel: (id: number) => void } {
  const init: WorkerInit = { dbs: [], settings: loadSettings({ env: {} }), cancel: new SharedArrayBuffer(8), flow: new SharedArrayBuffer(8) };
  const flags = new Int32Array(init.cancel);
  const posted: WorkerMessage[] = [];
  return {
    calls: new CallRunner(init, (m) => posted.push(m)),
    posted,
    cancel: (id) => {
      Atomics.store(flags, 1, CANCELLED);
      Atomics.store(flags, 0, id);
    },
  };
}

describe('a call\'s last cancel check', () => {
  it('answers cancelled when the cancel lands after the method\'s last checkpoint', () => {
    const { calls, posted, cancel } = runner();
    calls.run({ kind: 'call', id: 7, method: 'run', params: [] }, () => {
      cancel(7);
      return { rows: 1 };
    });
    expect(posted).toEqual([{ kind: 'fail', id: 7, error: { kind: 'cancelled', message: 'the query was cancelled' } }]);
  });

  it('answers a committed import\'s report however late the cancel came, and stops one before its write', () => {
    const { calls, posted, cancel } = runner();
    calls.run({ kind: 'call', id: 8, method: 'import', params: [] }, () => {
      cancel(8);
      return new Committed({ rows: 30, written: true });
    });
    expect(posted).toEqual([{ kind: 'done', id: 8, value: { rows: 30, written: true } }]);
    calls.run({ kind: 'call', id: 9, method: 'import', params: [] }, (_params, io) => {
      cancel(9);
      io.checkpoint();
      return new Committed({ rows: 30, written: true });
    });
    expect(posted.at(-1)).toEqual({ kind: 'fail', id: 9, error: { kind: 'cancelled', message: 'the query was cancelled' } });
  });
});
