import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { Column } from '../../engine/core/column.js';
import { dictOf } from '../../engine/core/dict.js';
import { Table } from '../../engine/core/table.js';
import { RenderHelpers } from '../../engine/output/parallel-text.js';
import { tableToArrow, writeArrowStream } from '../../engine/service/arrow.js';
import { generated } from '../helpers/generated-table.js';

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
const stream = (t: Table, helpers: RenderHelpers | null, write?: (bytes: Uint8Array) => void): Buffer => streamed(t, helpers, write).bytes;
const BATCHES = Math.ceil(ROWS / BATCH);

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
  it('is byte for byte the one-thread stream, with one and two helpers, for a table and a view, and holds tableToArrow’s values', () => {
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
        const got = streamed(t, RenderHelpers.start(count));
        expect(got.bytes.equals(one), `${count} helper(s)`).toBe(true);
        // batch b is the helper's at place b % (count + 1)
        expect(got.helped).toBe(Array.from({ length: BATCHES }, (_, b) => b % (count + 1)).filter((p) => p > 0).length);
      }
    }
  });

  it('fills batches of a dictionary much larger than the rows (only the entries used travel) on helpers too', () => {
    const entries = 5 * ROWS;
    const t = new Table(['id', 'x'], [
      { type: 'symbol', codes: Int32Array.from({ length: ROWS }, (_, i) => (i * 97) % entries), dict: dictOf(Array.from({ length: entries }, (_, k) => (k % 13 === 0 ? '' : `E${k}`))) },
      { type: 'float', data: Float64Array.from({ length: ROWS }, (_, i) => i / 3) },
    ] as Column[]);
    const one = stream(t, null);
    const got = streamed(t, RenderHelpers.start(1));
    expect(got.bytes.equals(one)).toBe(true);
    expect(got.helped).toBe(Math.floor(BATCHES / 2));
    const back = tableFromIPC(one);
    expect(back.getChild('id')!.get(5)).toBe('E485');
    expect(back.getChild('id')!.get(0)).toBeNull();
    // the dictionary holds the entries the rows use, not all 25,615
    expect((back.getChild('id')!.data[0]!.dictionary!.length)).toBeLessThanOrEqual(ROWS);
  });

  it('fills a silent helper’s batches itself: the stream is whole', async () => {
    const t = fixedAndSymbols(ROWS, 22);
    const helpers = RenderHelpers.start(1, 300);
    // the helper dies before it fills a batch
    await (helpers as unknown as { workers: Array<{ terminate(): Promise<number> }> }).workers[0]!.terminate();
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
