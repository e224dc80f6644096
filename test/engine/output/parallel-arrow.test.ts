import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { Column } from '../../../engine/core/column.js';
import { dictOf } from '../../../engine/core/dict.js';
import { Table } from '../../../engine/core/table.js';
import { RenderHelpers } from '../../../engine/output/parallel-text.js';
import { tableToArrow, writeArrowStream } from '../../../engine/output/arrow.js';
import { generated } from '../../helpers/generated-table.js';
import { heldRenderHelpers } from '../../helpers/render-threads.js';

// needs the built helper script (dist/bin/render-worker.cjs): npm run build

const BATCH = 1000;
const ROWS = 5 * BATCH + 123; // batches for the writer and for each of two helpers, and a short last one
const OPTS = { exact: true, zone: 'America/New_York', metadata: new Map([['header', '{"rc":0}']]) };

/** The generated table without its string and list columns (those keep a stream on one thread). */
function fixedAndSymbols(n: number, seed: number): Table {
  const t = generated(n, seed);
  return t.select(t.defs.filter((d) => d.type !== 'string' && d.type !== 'float[]' && d.type !== 'long[]').map((d) => d.name));
}

/** The stream's bytes, and how many of its batches helpers filled. */
function streamed(t: Table, helpers: RenderHelpers | null, write?: (bytes: Uint8Array) => void): { bytes: Buffer; helped: number } {
  const chunks: Buffer[] = [];
  const helped = writeArrowStream(t, OPTS, write ?? ((c) => chunks.push(Buffer.from(c))), BATCH, helpers);
  return { bytes: Buffer.concat(chunks), helped };
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/**
 * The stream's bytes through a slow reader (1 ms a write, as a pipe that drains slowly), with helpers
 * loaded first: batches go to whoever is free, and the helpers then surely take some.
 */
async function streamedSlowly(t: Table, count: number): Promise<{ bytes: Buffer; helped: number }> {
  const helpers = RenderHelpers.start(count);
  await helpers.ready();
  const chunks: Buffer[] = [];
  const got = streamed(t, helpers, (c) => {
    chunks.push(Buffer.from(c));
    Atomics.wait(pause, 0, 0, 1);
  });
  return { bytes: Buffer.concat(chunks), helped: got.helped };
}
const stream = (t: Table, helpers: RenderHelpers | null, write?: (bytes: Uint8Array) => void): Buffer => streamed(t, helpers, write).bytes;

/** Every value of every column, row by row (nulls as null), and the null count of each. */
function values(bytes: Uint8Array): Record<string, { nulls: number; rows: unknown[] }> {
  const a = tableFromIPC(bytes);
  return Object.fromEntries(
    a.schema.fields.map((f) => {
      const v = a.getChild(f.name)!;
      const rows = Array.from({ length: a.numRows }, (_, i) => {
        const x: unknown = v.get(i);
        return x && typeof x === 'object' && 'toArray' in x ? Array.from((x as { toArray(): ArrayLike<unknown> }).toArray()) : x;
      });
      return [f.name, { nulls: v.nullCount, rows }];
    }),
  );
}

describe('Arrow record batches filled on more than one thread', () => {
  it('is byte for byte the one-thread stream, with one and two helpers, for a table and a view, and holds tableToArrow’s values', async () => {
    const base = fixedAndSymbols(ROWS, 21);
    // a view reading its base out of order, as a time-ordered result does
    const view = base.take(Int32Array.from({ length: ROWS }, (_, i) => (i * 7919) % ROWS));
    for (const t of [base, view]) {
      const one = stream(t, null);
      const got = values(one);
      expect(got).toEqual(values(tableToArrow(t, OPTS)));
      // nulls of every kind are there to be found: timestamps, longs, ints, dates, spans, floats, symbols
      for (const name of ['time', 'size', 'n', 'day', 'span', 'price', 'mixed,sym']) expect(got[name]!.nulls, name).toBeGreaterThan(0);
      expect(tableFromIPC(one).batches).toHaveLength(Math.ceil(ROWS / BATCH));
      for (const count of [1, 2]) {
        // as fast as it goes (helpers still loading take what is left), and through a slow reader
        expect(streamed(t, RenderHelpers.start(count)).bytes.equals(one), `${count} helper(s)`).toBe(true);
        const got = await streamedSlowly(t, count);
        expect(got.bytes.equals(one), `${count} helper(s), slow reader`).toBe(true);
        // whoever is free takes the next batch: the loaded helpers took some (the writer may take
        // none: it writes the schema and dictionaries through the slow reader first)
        expect(got.helped).toBeGreaterThan(0);
      }
    }
  });

  it('fills batches of a dictionary much larger than the rows (only the entries used travel) on helpers too', async () => {
    const entries = 5 * ROWS;
    const t = new Table(['id', 'x'], [
      { type: 'symbol', codes: Int32Array.from({ length: ROWS }, (_, i) => (i * 97) % entries), dict: dictOf(Array.from({ length: entries }, (_, k) => (k % 13 === 0 ? '' : `E${k}`))) },
      { type: 'float', data: Float64Array.from({ length: ROWS }, (_, i) => i / 3) },
    ] as Column[]);
    const one = stream(t, null);
    const got = await streamedSlowly(t, 1);
    expect(got.bytes.equals(one)).toBe(true);
    expect(got.helped).toBeGreaterThan(0);
    const back = tableFromIPC(one);
    expect(back.getChild('id')!.get(5)).toBe('E485');
    expect(back.getChild('id')!.get(0)).toBeNull();
    // the dictionary holds the entries the rows use, not all 25,615
    expect((back.getChild('id')!.data[0]!.dictionary!.length)).toBeLessThanOrEqual(ROWS);
  });

  it('moves every 64-bit pattern exactly (NaN payloads, ±0W, null, zero) and finds symbols’ nulls with one, several or no null codes', async () => {
    // 64-bit integers move as float64 bits: patterns that are NaNs or -0 as floats must come out as they went in
    const patterns = [0x7fffffffffffffffn, 0x7ff0000000000001n, 0x7ff8000000000000n, 0x7ff4000000000123n, -0x7fffffffffffffffn, -1n, 0n, 1n, -0x8000000000000000n, 0xfff0000000000001n - (1n << 64n)];
    const n = 20 * BATCH + 7;
    const size = BigInt64Array.from({ length: n }, (_, i) => patterns[(i * 31) % patterns.length]!);
    const cases: Array<[string, string[]]> = [
      ['one', Array.from({ length: 40 }, (_, k) => (k === 3 ? '' : `S${k}`))],
      ['several', Array.from({ length: 40 }, (_, k) => (k % 11 === 0 ? '' : `S${k}`))],
      ['none', Array.from({ length: 40 }, (_, k) => `S${k}`)],
    ];
    const base = new Table(['size', ...cases.map(([name]) => name)], [
      { type: 'long', data: size },
      ...cases.map(([, strings]) => ({ type: 'symbol', codes: Int32Array.from({ length: n }, (_, i) => (i * 7) % 40), dict: dictOf(strings) })),
    ] as Column[]);
    const order = Int32Array.from({ length: n }, (_, i) => (i * 7919) % n);
    // a view over its base through a row index, as a time-ordered result is (take would gather it)
    const view = Table.view(base.names, base.columns, order);
    // enough batches for the gathers to be optimized, on this thread and on a helper
    const streams = [streamed(view, null), await streamedSlowly(view, 1)];
    expect(streams[1]!.helped).toBeGreaterThan(0);
    for (const { bytes } of streams) {
      const back = tableFromIPC(bytes);
      const got = back.getChild('size')!;
      for (let i = 0; i < n; i++) {
        const want = size[order[i]!]!;
        expect(got.get(i), `row ${i}`).toBe(want === -0x8000000000000000n ? null : want);
      }
      expect(got.nullCount).toBe(Array.from(order).filter((r) => size[r] === -0x8000000000000000n).length);
      for (const [name, strings] of cases) {
        const col = back.getChild(name)!;
        const want = Array.from(order, (r) => strings[(r * 7) % 40]!);
        expect(col.nullCount, name).toBe(want.filter((s) => s === '').length);
        for (let i = 0; i < n; i += 97) expect(col.get(i), `${name} row ${i}`).toBe(want[i] === '' ? null : want[i]);
      }
    }
  });

  it('fills a silent helper’s batches itself: the stream is whole', async () => {
    const t = fixedAndSymbols(ROWS, 22);
    const { helpers, threads } = heldRenderHelpers(1, 300);
    // the helper dies before it fills a batch
    await threads[0]!.terminate();
    const got = streamed(t, helpers);
    expect(got.bytes.equals(stream(t, null))).toBe(true);
    expect(got.helped).toBe(0);
  });

  it('streams on one thread a table with strings or lists, or of one batch, and closes the helpers', () => {
    for (const t of [generated(ROWS, 23), fixedAndSymbols(BATCH - 1, 23)]) {
      const helpers = RenderHelpers.start(1);
      expect(values(stream(t, helpers))).toEqual(values(tableToArrow(t, OPTS)));
      expect(helpers.count).toBe(0);
    }
  });

  it('stops when the consumer throws (a cancel), and the error comes out', () => {
    const t = fixedAndSymbols(ROWS, 24);
    const helpers = RenderHelpers.start(1);
    let n = 0;
    const stop = new Error('cancelled');
    expect(() =>
      stream(t, helpers, () => {
        if (++n === 40) throw stop;
      }),
    ).toThrow(stop);
    expect(helpers.count).toBe(0);
  });
});
