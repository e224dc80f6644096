/**
 * TradeCanCor rows for one instrument-date: about 0.1% of continuous trades cancelled and 0.1%
 * corrected, each reported a little after the trade (and before the close). A correction carries the
 * full corrected price and volume; the corrected price stays inside the trade's prevailing quote.
 */
import { lastAtOrBefore } from './buffers.js';
import type { DayData, InstrumentRange } from './day.js';
import type { DemoInstrument } from './instruments.js';
import type { Rng } from './rng.js';
import { CC_CANCEL, CC_CORRECT } from './vocab.js';

const RATE = 0.001;

/** Adds the cancels and corrections of one instrument's trades on this date. */
export function addCanCor(day: DayData, r: InstrumentRange, inst: DemoInstrument, close: number, rng: Rng): void {
  // the opening and closing auction prints (first and last trade) are never amended
  const first = r.tradeStart + 1;
  const n = r.tradeEnd - 1 - first;
  if (n <= 0) return;
  const nCancel = Math.floor(n * RATE + rng.next());
  const nCorrect = Math.floor(n * RATE + rng.next());
  const chosen = new Set<number>();
  const tr = day.trades;
  const q = day.quotes;
  const cc = day.cancor;
  const tpu = inst.ticksPerUnit;
  for (let k = 0; k < nCancel + nCorrect && chosen.size < n; k++) {
    let idx = first + rng.int(n);
    while (chosen.has(idx)) idx = first + rng.int(n);
    chosen.add(idx);
    const t = tr.time.data[idx]!;
    const delay = Math.min(Math.floor(rng.range(0.5e9, 300e9)), Math.floor((close - t) / 2));
    cc.time.push(t + Math.max(1, delay));
    cc.inst.push(r.code);
    cc.tradeSeq.push(tr.seq.data[idx]!);
    if (k < nCancel) {
      cc.action.push(CC_CANCEL);
      cc.price.push(NaN);
      cc.volume.push(NaN);
      continue;
    }
    cc.action.push(CC_CORRECT);
    const ticks = Math.round(tr.price.data[idx]! * tpu);
    const vol = tr.volume.data[idx]!;
    const qi = lastAtOrBefore(q.time.data, r.quoteStart, r.quoteEnd, t);
    const bid = Math.round(q.bid.data[qi]! * tpu);
    const ask = Math.round(q.ask.data[qi]! * tpu);
    if (rng.next() < 0.5 && ask > bid) {
      // a mis-keyed price: another tick inside the same quote
      let p = bid + rng.int(ask - bid);
      if (p >= ticks) p++;
      cc.price.push(p / tpu);
      cc.volume.push(vol);
    } else {
      const lots = vol / inst.lotSize;
      const fixed = Math.max(1, lots + (rng.next() < 0.5 || lots <= 1 ? 1 + rng.int(5) : -1 - rng.int(Math.min(5, lots - 1))));
      cc.price.push(ticks / tpu);
      cc.volume.push(fixed * inst.lotSize);
    }
  }
}
