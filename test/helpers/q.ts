/** q IPC messages the gateway tests send over raw sockets, built with the gateway's own writer. */
import { MSG_SYNC, QWriter } from '../../engine/q/codec.js';

/** A sync `(op; (enlist `table)!enlist `<table>)` message. */
export function qTableCall(op: string, table: string): Buffer {
  const w = QWriter.forMessage();
  w.vector(0, 2);
  w.symbol(op);
  w.u8(99);
  w.vector(11, 1);
  w.symText('table');
  w.vector(0, 1);
  w.symbol(table);
  return w.message(MSG_SYNC);
}
