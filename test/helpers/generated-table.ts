/**
 * A generated table with every column type, nulls and edge values in each (floats of every shape,
 * timestamps around DST changes, symbols needing escapes in JSON and CSV), for renderer tests.
 */
import type { Column } from '../../engine/core/column.js';
import { ConcatDict, type Dict, dictOf, PickDict, Utf8Dict } from '../../engine/core/dict.js';
import { Table } from '../../engine/core/table.js';
import { Rng } from '../../engine/demo/rng.js';

/** A small deterministic generator (mulberry32). */
export function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}

const bits = new DataView(new ArrayBuffer(8));

/** Floats of every shape: prices, noise, integers, extremes, special values. */
export function floatOf(r: () => number): number {
  const kind = Math.floor(r() * 12);
  switch (kind) {
    case 0:
      return NaN;
    case 1:
      return [Infinity, -Infinity, 0, -0, 5e-324, 1e300, -1e-300, 1e21, 2 ** 53 + 2, 0.1 + 0.2, 169.07999999999998, 1e-7, 1e-6, 9999999.99999999][Math.floor(r() * 14)]!;
    case 2: {
      bits.setUint32(0, Math.floor(r() * 4294967296));
      bits.setUint32(4, Math.floor(r() * 4294967296));
      return bits.getFloat64(0);
    }
    case 3:
      return Math.round((r() - 0.5) * 2 ** 60);
    case 4:
      return (r() - 0.5) * 10 ** Math.floor(r() * 30 - 15);
    case 5:
      return 170.6 + 0.01 * Math.floor(r() * 100) - 0.3; // price arithmetic with float noise
    default: {
      const decimals = Math.floor(r() * 9);
      return Math.round((r() - 0.3) * 10 ** (Math.floor(r() * 9) + decimals)) / 10 ** decimals;
    }
  }
}

export const TEXTS = ['AAPL', '', 'BRK.B', 'say "hi"', 'a,b', 'line\nbreak', 'cr\rlf', 'back\\slash', 'tab\there', '\u0001ctl', 'Zürich', '株式', '🚀 moon', 'lone\uD800half', 'x'.repeat(300)];

export function utf8Dict(strings: readonly string[]): Utf8Dict {
  const enc = new TextEncoder();
  const parts = strings.map((s) => enc.encode(s));
  const offsets = new Int32Array(parts.length + 1);
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
  const data = new Uint8Array(offsets[parts.length]!);
  parts.forEach((p, i) => data.set(p, offsets[i]!));
  return new Utf8Dict(offsets, data, false);
}

/** A table with every column type, n rows, nulls and edge values in each. */
export function generated(n: number, seed: number): Table {
  const r = rng(seed);
  const ts = new BigInt64Array(n);
  const longs = new BigInt64Array(n);
  const spans = new BigInt64Array(n);
  const floats = new Float64Array(n);
  const ints = new Int32Array(n);
  const dates = new Int32Array(n);
  const bools = new Uint8Array(n);
  const codes = new Int32Array(n);
  const codes2 = new Int32Array(n);
  const strings: string[] = [];
  const offsets = new Int32Array(n + 1);
  const listValues: number[] = [];
  // around the 2024 DST changes of New York and London, and anywhere in 1900..2100
  const dst = [1710054000000000000n, 1711846800000000000n, 1730613600000000000n, 1729990800000000000n];
  for (let i = 0; i < n; i++) {
    const k = r();
    ts[i] =
      k < 0.05
        ? -9223372036854775808n
        : k < 0.07
          ? 9223372036854775807n
          : k < 0.09
            ? -9223372036854775807n
            : k < 0.5
              ? dst[Math.floor(r() * 4)]! + BigInt(Math.floor((r() - 0.5) * 7200e6)) * 1000n + BigInt(Math.floor(r() * 1000))
              : BigInt(Math.floor((r() - 0.1) * 4.1e9)) * 1_000_000_000n + BigInt(Math.floor(r() * 1e9));
    longs[i] = r() < 0.05 ? -9223372036854775808n : r() < 0.2 ? BigInt.asIntN(64, BigInt(Math.floor(r() * 2 ** 52)) * BigInt(Math.floor(r() * 2 ** 20))) : BigInt(Math.floor((r() - 0.5) * 2e6));
    spans[i] = r() < 0.05 ? -9223372036854775808n : BigInt(Math.floor((r() - 0.3) * 3 * 86400e6)) * 1000n;
    floats[i] = floatOf(r);
    ints[i] = r() < 0.05 ? -2147483648 : Math.floor((r() - 0.5) * 4e9);
    dates[i] = r() < 0.05 ? -2147483648 : Math.floor((r() - 0.2) * 60000);
    bools[i] = r() < 0.5 ? 1 : 0;
    codes[i] = Math.floor(r() * TEXTS.length);
    codes2[i] = Math.floor(r() * (TEXTS.length + 3));
    strings.push(TEXTS[Math.floor(r() * TEXTS.length)]!);
    const len = Math.floor(r() * 4);
    for (let j = 0; j < len; j++) {
      const x = floatOf(r);
      listValues.push(r() < 0.1 ? NaN : Number.isFinite(x) ? x : 2.5); // lists hold finite values or nulls
    }
    offsets[i + 1] = listValues.length;
  }
  const concat: Dict = new ConcatDict([utf8Dict(TEXTS.slice(0, 8)), new PickDict(dictOf(['q', ...TEXTS.slice(8)]), Int32Array.from({ length: TEXTS.length - 8 }, (_, j) => j + 1)), dictOf(['AAPL', 'z', 'a,"b"'])]);
  const columns: Array<[string, Column]> = [
    ['time', { type: 'timestamp', data: ts }],
    ['sym', { type: 'symbol', codes, dict: dictOf(TEXTS) }],
    ['stored "sym"', { type: 'symbol', codes, dict: utf8Dict(TEXTS) }],
    ['mixed,sym', { type: 'symbol', codes: codes2, dict: concat }],
    ['price', { type: 'float', data: floats }],
    ['size', { type: 'long', data: longs }],
    ['n', { type: 'int', data: ints }],
    ['day', { type: 'date', data: dates }],
    ['span', { type: 'timespan', data: spans }],
    ['flag', { type: 'boolean', data: bools }],
    ['note', { type: 'string', values: strings }],
    ['levels', { type: 'float[]', values: Float64Array.from(listValues), offsets }],
  ];
  return new Table(
    columns.map(([name]) => name),
    columns.map(([, c]) => c),
  );
}

