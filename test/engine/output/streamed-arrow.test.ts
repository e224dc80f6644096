/**
 * A streamed result (`tickscope call --format arrow`): the columns its query did not read are read a
 * record batch at a time from their files as the stream is written. The bytes are those of the same
 * result read whole first, on one thread or with helpers, for a full day, a narrow window and a
 * sparse filter; the files stay readable after the partition's folder is removed, and are closed
 * together when the stream is done.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withStreamedFiles } from '../../../engine/core/query-hooks.js';
import type { Column } from '../../../engine/core/column.js';
import type { Table } from '../../../engine/core/table.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { streamable } from '../../../engine/output/arrow-batch.js';
import { RenderHelpers } from '../../../engine/output/parallel-text.js';
import { writeArrowStream } from '../../../engine/output/arrow.js';
import { FileDict, OpenFiles } from '../../../engine/storage/stored-column.js';
import { tempDir } from '../../helpers/db.js';

// needs the built helper script (dist/bin/render-worker.cjs): npm run build

const dir = join(tempDir(), 'demo');
const report = generateDemo(dir, { days: 2, instruments: 7, tradesPerDay: 30000, seed: 5 });
const day = report.dates[0]!.replace(/-/g, '.');
const next = report.dates[1]!.replace(/-/g, '.');
const BATCH = 1000;
const OPTS = { exact: true, zone: 'America/New_York', metadata: new Map([['header', '{}']]) };

function arrow(t: Table, helpers: RenderHelpers | null = null): Buffer {
  const chunks: Buffer[] = [];
  writeArrowStream(t, OPTS, (c) => chunks.push(Buffer.from(c)), BATCH, helpers);
  return Buffer.concat(chunks);
}

/** The query read whole (a fresh engine: nothing cached) and streamed (another fresh engine), and the streamed one's files. */
function both(args: Record<string, unknown>): { whole: Table; streamed: Table; files: OpenFiles } {
  const whole = Engine.open([dir]).call('getTicks', args).table;
  const files = new OpenFiles();
  const streamed = withStreamedFiles(files, () => Engine.open([dir]).call('getTicks', args)).table;
  return { whole, streamed, files };
}

const deferredCount = (t: Table): number => t.streamSources().filter((s) => s.deferred).length;

describe('a streamed Arrow result', () => {
  it('reads a full day a batch at a time: the bytes of the result read whole, on one thread and with helpers', async () => {
    const { whole, streamed, files } = both({ table: 'Trade', startTS: day, endTS: next });
    try {
      expect(whole.length).toBeGreaterThan(20 * BATCH);
      // every column, the time column too (the query's binary searches read ~40 of its rows), and none
      // of the result read whole
      expect(deferredCount(streamed)).toBe(streamed.names.length);
      expect(deferredCount(whole)).toBe(0);
      // the execution IDs' dictionary (one entry a row, read in blocks): its offsets read, its bytes left in their file
      const ids = streamed.streamSources()[streamed.names.indexOf('executionID')]!.column as Extract<Column, { type: 'symbol' }>;
      expect(ids.dict).toBeInstanceOf(FileDict);
      const held = (ids.dict as FileDict).streamedWhole()!;
      expect(held.offsets.length).toBe(ids.dict.length + 1);
      expect(ids.dict.bytes).toBe(held.offsets.byteLength);
      const expected = arrow(whole);
      expect(arrow(streamed).equals(expected)).toBe(true);
      expect(ids.dict.bytes).toBe(held.offsets.byteLength);
      const helpers = RenderHelpers.start(2);
      await helpers.ready();
      expect(arrow(streamed, helpers).equals(expected)).toBe(true);
      // still unread: each stream read its batches' rows from the files
      expect(deferredCount(streamed)).toBe(streamed.names.length);
    } finally {
      files.close();
    }
  });

  it('a narrow window (one instrument, one hour) and a sparse filter (read whole when used) give the same bytes', () => {
    const id = report.instruments[2]!;
    for (const [args, dense] of [
      [{ table: 'Trade', startTS: `${day}D13:00`, endTS: `${day}D18:00`, idList: [id] }, true],
      [{ table: 'Trade', startTS: day, endTS: next, filter: [['>=', 'volume', 900]] }, false],
    ] as const) {
      const { whole, streamed, files } = both(args);
      try {
        expect(whole.length).toBeGreaterThan(BATCH);
        expect(deferredCount(streamed)).toBeGreaterThan(0);
        const { index, deferred } = streamed.streamSources().find((s) => s.deferred)!;
        expect(streamable(index!, deferred!.file.rows)).toBe(dense);
        expect(arrow(streamed).equals(arrow(whole))).toBe(true);
      } finally {
        files.close();
      }
    }
  });

  it('reads a column whole the first time anything else uses its values', () => {
    const { whole, streamed, files } = both({ table: 'Trade', startTS: day, endTS: next });
    try {
      expect(streamed.get('price')).toEqual(whole.get('price'));
      const ids = (t: Table): string[] => {
        const c = t.get('executionID') as Extract<Column, { type: 'symbol' }>;
        return Array.from(c.codes, (k) => c.dict.get(k));
      };
      expect(ids(streamed)).toEqual(ids(whole));
      expect(streamed.streamSources().find((_, j) => streamed.names[j] === 'price')!.deferred).toBeUndefined();
      expect(deferredCount(streamed)).toBe(streamed.names.length - 2);
    } finally {
      files.close();
    }
  });

  it("keeps reading the query's files after a write removed their folder, and closes them together", () => {
    const fds = (): number => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const before = fds();
    const { whole, streamed, files } = both({ table: 'Trade', startTS: report.dates[1]!.replace(/-/g, '.'), endTS: '2030.01.01' });
    const expected = arrow(whole);
    const folder = join(dir, 'data', 'Trade');
    const dayFolder = readdirSync(folder).find((f) => f.startsWith(report.dates[1]!))!;
    rmSync(join(folder, dayFolder), { recursive: true });
    expect(arrow(streamed).equals(expected)).toBe(true);
    if (before > 0) expect(fds()).toBeGreaterThan(before);
    files.close();
    if (before > 0) expect(fds()).toBe(before);
  });

  it("a whole day's rows are the stored time order itself, shared by the queries that read it and never written", () => {
    const engine = Engine.open([dir]);
    const day1 = { table: 'Trade', startTS: day, endTS: next };
    const first = engine.call('getTicks', day1).table;
    const indexOf = (t: Table): Int32Array => t.streamSources()[0]!.index!;
    expect(indexOf(first).buffer).toBeInstanceOf(SharedArrayBuffer);
    const before = Int32Array.from(indexOf(first));
    // a filtered query over the same day compacts its own rows, and a sorted one sorts its own
    expect(engine.call('getTicks', { ...day1, filter: [['>=', 'volume', 500]] }).table.length).toBeLessThan(first.length);
    expect(engine.call('getTicks', { ...day1, sortCols: [['desc', 'price']] }).table.length).toBe(first.length);
    const again = engine.call('getTicks', day1).table;
    expect(indexOf(again).buffer).toBe(indexOf(first).buffer);
    expect(Int32Array.from(indexOf(again))).toEqual(before);
    expect(again.get('price')).toEqual(first.get('price'));
    // an hour is a part of it; a filter's rows are its own
    expect(indexOf(engine.call('getTicks', { table: 'Trade', startTS: `${day}D14:00`, endTS: `${day}D15:00` }).table).buffer).toBe(indexOf(first).buffer);
    expect(indexOf(engine.call('getTicks', { ...day1, filter: [['>=', 'volume', 500]] }).table).buffer).not.toBe(indexOf(first).buffer);
  });

  it('streams rows whose blocks hold at most twice as many rows', () => {
    const rows = 100_000;
    const every = (step: number): Int32Array => Int32Array.from({ length: rows / step }, (_, i) => i * step);
    expect(streamable(every(1), rows)).toBe(true);
    expect(streamable(every(2), rows)).toBe(true);
    expect(streamable(every(3), rows)).toBe(false);
    expect(streamable(every(64), rows)).toBe(false);
  });
});
