/**
 * Random access to a kdb+ file's image a 4 KiB page at a time, for the reads that hop about it (an
 * attribute index scanned from the end, an anymap column's elements): only the pages touched are read
 * (a compressed file's blocks are cached beneath), and a few dozen at most are kept.
 */
import type { KdbBytes } from './io.js';

const PAGE = 4096;

/** Pages of one image. */
export class Pages {
  private readonly pages = new Map<number, DataView>();

  constructor(readonly bytes: KdbBytes) {}

  private view(at: number): [DataView, number] {
    const p = Math.floor(at / PAGE);
    let v = this.pages.get(p);
    if (!v) {
      const b = this.bytes.read(p * PAGE, Math.min(this.bytes.length, (p + 1) * PAGE));
      if (this.pages.size >= 64) this.pages.clear(); // a scan's pages, not a copy of the file
      this.pages.set(p, (v = new DataView(b.buffer, b.byteOffset, b.byteLength)));
    }
    return [v, at - p * PAGE];
  }

  u8(at: number): number {
    const [v, o] = this.view(at);
    return v.getUint8(o);
  }

  /** The int64 at `at` as a number, or -1 when negative or past 2^53 (never a count or boundary). */
  i64(at: number): number {
    if (Math.floor(at / PAGE) !== Math.floor((at + 7) / PAGE)) {
      let lo = 0;
      for (let k = 0; k < 4; k++) lo += this.u8(at + k) * 2 ** (8 * k);
      let hi = 0;
      for (let k = 0; k < 4; k++) hi += this.u8(at + 4 + k) * 2 ** (8 * k);
      return hi >= 2 ** 21 ? -1 : hi * 4294967296 + lo;
    }
    const [v, o] = this.view(at);
    const hi = v.getInt32(o + 4, true);
    return hi < 0 || hi >= 2 ** 21 ? -1 : hi * 4294967296 + v.getUint32(o, true);
  }
}
