import { describe, expect, it } from 'vitest';
import type { Column } from '../../../engine/core/column.js';
import { dictOf } from '../../../engine/core/dict.js';
import { Table } from '../../../engine/core/table.js';
import { BLOCK_ROWS, RenderHelpers, writeText } from '../../../engine/output/parallel-text.js';
import { textChunks, type TextOptions } from '../../../engine/output/text.js';
import { generated } from '../../helpers/generated-table.js';
import { heldRenderHelpers } from '../../helpers/render-threads.js';

// needs the built helper script (dist/bin/render-worker.cjs): npm run build

const ROWS = 5 * BLOCK_ROWS + 123; // blocks for the writer and for each of two helpers, and a short last one

/** The generated table without its string and list columns (those keep a result on one thread). */
function fixedAndSymbols(n: number, seed: number): Table {
  const t = generated(n, seed);
  return t.select(t.defs.filter((d) => d.type !== 'string' && d.type !== 'float[]' && d.type !== 'long[]').map((d) => d.name));
}

const one = (format: 'json' | 'csv', t: Table, zone: string, opts: TextOptions = {}): Buffer => Buffer.concat([...textChunks(format, t, zone, opts)]);

function parallel(format: 'json' | 'csv', t: Table, zone: string, helpers: RenderHelpers | null, opts: TextOptions = {}): { bytes: Buffer; chunks: number } {
  const chunks: Uint8Array[] = [];
  writeText(format, t, zone, opts, (c) => chunks.push(opts.reuse ? c.slice() : c), helpers);
  return { bytes: Buffer.concat(chunks), chunks: chunks.length };
}

describe('text rendered on more than one thread', () => {
  it('is byte for byte the one-thread JSON and CSV, with one and two helpers, for a table and a view', () => {
    const base = fixedAndSymbols(ROWS, 5);
    // a view reading its base out of order, as a time-ordered result does
    const view = base.take(Int32Array.from({ length: ROWS }, (_, i) => (i * 7919) % ROWS));
    for (const [t, zone] of [
      [base, 'America/New_York'],
      [view, 'UTC'],
    ] as const) {
      for (const count of [1, 2]) {
        for (const format of ['json', 'csv'] as const) {
          const opts = { prefix: '{"payload":', suffix: '}\n' };
          const got = parallel(format, t, zone, RenderHelpers.start(count), opts);
          expect(got.bytes.equals(one(format, t, zone, opts)), `${format}, ${count} helper(s), ${zone}`).toBe(true);
        }
      }
    }
    const parsed = JSON.parse(parallel('json', base, 'UTC', RenderHelpers.start(1)).bytes.toString()) as unknown[];
    expect(parsed).toHaveLength(ROWS);
  });

  it('hands out chunks the consumer keeps, or one reused buffer, as asked', () => {
    const t = fixedAndSymbols(ROWS, 6);
    const expected = one('csv', t, 'UTC');
    const kept = parallel('csv', t, 'UTC', RenderHelpers.start(1), { chunkBytes: 1 << 16 });
    expect(kept.bytes.equals(expected)).toBe(true);
    expect(kept.chunks).toBeGreaterThan(expected.length / (1 << 16) - 1);
    expect(parallel('csv', t, 'UTC', RenderHelpers.start(1), { reuse: true }).bytes.equals(expected)).toBe(true);
  });

  it('reports the rows written in order, ending at every row', () => {
    const t = fixedAndSymbols(ROWS, 7);
    const seen: number[] = [];
    parallel('json', t, 'UTC', RenderHelpers.start(1), { onRows: (done, total) => (expect(total).toBe(ROWS), seen.push(done)) });
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(ROWS);
    expect(seen.length).toBe(Math.ceil(ROWS / BLOCK_ROWS));
  });

  it('renders a row wider than a helper slot on the writer, in its place', () => {
    const wide = 'w'.repeat(1_500_000);
    const codes = Int32Array.from({ length: ROWS }, (_, i) => (i === BLOCK_ROWS + 5 || i === 3 * BLOCK_ROWS ? 1 : 0));
    const t = new Table(['n', 's'], [{ type: 'float', data: Float64Array.from({ length: ROWS }, (_, i) => i / 4) }, { type: 'symbol', codes, dict: dictOf(['a,b', wide]) }] as Column[]);
    for (const format of ['json', 'csv'] as const) expect(parallel(format, t, 'UTC', RenderHelpers.start(1)).bytes.equals(one(format, t, 'UTC'))).toBe(true);
  });

  it('renders on one thread a table with strings or lists, or too few rows, and closes the helpers', () => {
    for (const t of [generated(ROWS, 8), fixedAndSymbols(1000, 8)]) {
      const helpers = RenderHelpers.start(1);
      expect(parallel('json', t, 'UTC', helpers).bytes.equals(one('json', t, 'UTC'))).toBe(true);
      expect(helpers.count).toBe(0);
    }
  });

  it('renders a silent helper’s rows itself: the output is whole', async () => {
    const t = fixedAndSymbols(ROWS, 9);
    const { helpers, threads } = heldRenderHelpers(1, 300);
    // the helper dies before it renders a row
    await threads[0]!.terminate();
    expect(parallel('csv', t, 'UTC', helpers).bytes.equals(one('csv', t, 'UTC'))).toBe(true);
  });

  it('stops when the consumer throws (a cancel), and the error comes out', () => {
    const t = fixedAndSymbols(ROWS, 10);
    const helpers = RenderHelpers.start(1);
    let n = 0;
    const stop = new Error('cancelled');
    expect(() =>
      writeText('json', t, 'UTC', { chunkBytes: 1 << 14 }, () => {
        if (++n === 20) throw stop;
      }, helpers),
    ).toThrow(stop);
    expect(helpers.count).toBe(0);
  });
});
