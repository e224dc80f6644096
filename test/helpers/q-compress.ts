/** kdb+ IPC compression for tests: what a q client sends when it compresses a message. */

/** A whole message compressed as kdb+ does (header kept, compressed flag set, unpacked length after it). */
export function compressMessage(msg: Uint8Array): Buffer {
  const n = msg.length;
  const out: number[] = [...msg.subarray(0, 8)];
  out[2] = 1;
  const size = Buffer.alloc(4);
  size.writeInt32LE(n);
  out.push(...size);
  const aa = new Int32Array(256);
  let s = 8;
  let p = 8;
  while (s < n) {
    const flagAt = out.length;
    out.push(0);
    for (let bit = 1; bit < 256 && s < n; bit <<= 1) {
      const h = s + 1 < n ? msg[s]! ^ msg[s + 1]! : -1;
      const r = h >= 0 ? aa[h]! : 0;
      let extra = -1;
      if (r >= 8 && msg[r] === msg[s] && msg[r + 1] === msg[s + 1]) {
        extra = 0;
        while (extra < 255 && s + 2 + extra < n && msg[r + 2 + extra] === msg[s + 2 + extra]) extra++;
      }
      if (extra >= 0) {
        out[flagAt]! |= bit;
        out.push(h, extra);
        s += 2;
      } else {
        out.push(msg[s]!);
        s++;
      }
      while (p < s - 1) {
        aa[msg[p]! ^ msg[p + 1]!] = p;
        p++;
      }
      if (extra >= 0) p = s += extra;
    }
  }
  const b = Buffer.from(out);
  b.writeUInt32LE(b.length, 4);
  return b;
}

/**
 * A decompression bomb of kdb+ IPC compression: the compressed body (no header) that unpacks to
 * `size` zero bytes, two literals then back references of 257 bytes each, ~121x.
 */
export function zeroBomb(size: number): Buffer {
  const refs = Math.ceil(Math.max(0, size - 2) / 257);
  const b = Buffer.alloc(Math.ceil((refs + 2) / 8) + 2 * refs + 2);
  let d = 0;
  let s = 0;
  let flagAt = 0;
  for (let item = 0; s < size; item++) {
    if (item % 8 === 0) flagAt = d++;
    if (s < 2 || size - s < 2) {
      b[d++] = 0;
      s++;
    } else {
      const extra = Math.min(255, size - s - 2);
      b[flagAt]! |= 1 << item % 8;
      b[d++] = 0;
      b[d++] = extra;
      s += 2 + extra;
    }
  }
  return b.subarray(0, d);
}
