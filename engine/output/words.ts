/**
 * Short constant byte strings (JSON keys, a timestamp's date and second, a symbol's rendered text)
 * copied into an output buffer four bytes at a time: a DataView's 32-bit stores compile to single
 * unaligned stores, where a byte loop costs about 2 ns a byte (measured: 20 bytes per row over 2M
 * rows, 45 ns a row by bytes, 7–14 ns by words). Pure speed: the bytes written are the same.
 */

/** Bytes as little-endian 32-bit words and a tail of 0–3 bytes, ready to be stored. */
export interface Words {
  readonly words: Int32Array;
  readonly tail: Uint8Array;
  readonly length: number;
}

export function wordsOf(bytes: Uint8Array): Words {
  const n = bytes.length >> 2;
  const words = new Int32Array(n);
  for (let k = 0; k < n; k++) words[k] = bytes[4 * k]! | (bytes[4 * k + 1]! << 8) | (bytes[4 * k + 2]! << 16) | (bytes[4 * k + 3]! << 24);
  return { words, tail: bytes.slice(4 * n), length: bytes.length };
}

/** A DataView over the buffer a writer was last given, made again only when the buffer changes. */
export class ViewCache {
  private of: Uint8Array | null = null;
  private dv: DataView = new DataView(new ArrayBuffer(0));

  view(b: Uint8Array): DataView {
    if (b !== this.of) {
      this.of = b;
      this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    return this.dv;
  }
}

/** Stores `w` at p (room assumed) and returns the position after it. */
export function putWords(dv: DataView, b: Uint8Array, p: number, w: Words): number {
  const { words, tail } = w;
  for (let k = 0; k < words.length; k++) {
    dv.setInt32(p, words[k]!, true);
    p += 4;
  }
  for (let k = 0; k < tail.length; k++) b[p++] = tail[k]!;
  return p;
}

/** Copies src[from, to) to b at p through their views (room assumed); returns the position after it. */
export function copyBytes(dv: DataView, b: Uint8Array, p: number, sv: DataView, src: Uint8Array, from: number, to: number): number {
  let k = from;
  for (; k + 4 <= to; k += 4, p += 4) dv.setInt32(p, sv.getInt32(k, true), true);
  for (; k < to; k++) b[p++] = src[k]!;
  return p;
}
