import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { columnFromValues } from '../../../engine/core/builder.js';
import { TickscopeError } from '../../../engine/core/errors.js';
import { Table } from '../../../engine/core/table.js';
import { NULL_TS } from '../../../engine/core/time.js';
import { textCells } from '../../../engine/output/text-cells.js';
import { configFromJson } from '../../../engine/storage/config.js';
import { Database } from '../../../engine/storage/database.js';
import { schemaFromJson, type Schema } from '../../../engine/storage/schema.js';
import { useLockClock, withWriteLock } from '../../../engine/storage/write-lock.js';
import { tempDir } from '../../helpers/db.js';

/** A schema with one partitioned table holding a column of every type. */
function allTypesSchema(): Schema {
  return schemaFromJson({
    format: 1,
    tables: [
      {
        name: 'T',
        kind: 'partitioned',
        timeColumn: 'ts',
        columns: [
          { name: 'ts', type: 'timestamp' },
          { name: 'id', type: 'symbol' },
          { name: 'f', type: 'float' },
          { name: 'l', type: 'long' },
          { name: 'i', type: 'int' },
          { name: 'd', type: 'date' },
          { name: 'span', type: 'timespan' },
          { name: 'b', type: 'boolean' },
          { name: 's', type: 'string' },
          { name: 'fl', type: 'float[]' },
          { name: 'll', type: 'long[]' },
        ],
      },
    ],
  });
}

const DAY = 86_400_000_000_000n;
const BASE = 19_788n * DAY; // 2024-03-06

function sample(): Table {
  const T = allTypesSchema().tables.get('T')!;
  const values: Record<string, unknown[]> = {
    ts: [BASE + 5n, BASE + 1n, BASE + DAY - 1n],
    id: ['B', 'A', 'A'],
    f: [1.5, NaN, -0.25],
    l: [2 ** 53 - 1, NaN, -(2 ** 53 - 1)],
    i: [2147483647, NaN, -2147483647],
    d: [19788, null, -1],
    span: [-1n, NULL_TS, 90061_000_000_001n],
    b: [true, false, true],
    s: ['naïve 😀', '', 'a,"b"'],
    fl: [[1.5, 2.5], [], [NaN]],
    ll: [[1, 2, 3], [], [9007199254740991]],
  };
  return new Table(
    T.columns.map((c) => c.name),
    T.columns.map((c) => columnFromValues(c.type, values[c.name] as never)),
  );
}

describe('database storage', () => {
  it('round-trips every column type through disk, in storage order', () => {
    const dir = join(tempDir(), 'db');
    const db = Database.create(dir, allTypesSchema());
    db.commit({ partitions: [{ table: 'T', key: '2024-03-06', data: sample() }] });
    const again = Database.open(dir);
    const p = again.partition('T', '2024-03-06')!;
    expect(p.rows).toBe(3);
    // sorted by identifier then time: A@1, A@DAY-1, B@5
    expect([...(p.column('ts') as { data: BigInt64Array }).data]).toEqual([BASE + 1n, BASE + DAY - 1n, BASE + 5n]);
    expect(p.idRanges.get('A')).toEqual([0, 2]);
    expect(p.idRanges.get('B')).toEqual([2, 3]);
    const col = <T>(name: string): T => p.column(name) as T;
    expect([...col<{ data: Float64Array }>('f').data]).toEqual([NaN, -0.25, 1.5]);
    expect([...col<{ data: BigInt64Array }>('l').data]).toEqual([-9223372036854775808n, -(2n ** 53n - 1n), 2n ** 53n - 1n]);
    expect([...col<{ data: Int32Array }>('i').data]).toEqual([-2147483648, -2147483647, 2147483647]);
    expect([...col<{ data: Int32Array }>('d').data]).toEqual([-2147483648, -1, 19788]);
    expect([...col<{ data: BigInt64Array }>('span').data]).toEqual([NULL_TS, 90061_000_000_001n, -1n]);
    expect([...col<{ data: Uint8Array }>('b').data]).toEqual([0, 1, 1]);
    expect(col<{ values: string[] }>('s').values).toEqual(['', 'a,"b"', 'naïve 😀']);
    const fl = col<{ offsets: Int32Array; values: Float64Array }>('fl');
    expect([...fl.offsets]).toEqual([0, 0, 1, 3]);
    expect([...fl.values]).toEqual([NaN, 1.5, 2.5]);
    const ll = col<{ offsets: Int32Array; values: Float64Array }>('ll');
    expect([...ll.values]).toEqual([9007199254740991, 1, 2, 3]);
  });

  it('keeps the old state when a write dies before the manifest swap, and cleans up when next opened', async () => {
    const dir = join(tempDir(), 'db');
    const db = Database.create(dir, allTypesSchema());
    db.commit({ partitions: [{ table: 'T', key: '2024-03-06', data: sample() }] });
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8');
    const leave = (): void => {
      // A crashed writer: a half-written partition folder and a temporary manifest, never renamed; and
      // a superseded folder a process set aside for deletion but stopped before deleting.
      mkdirSync(join(dir, 'data', 'T', '2024-03-06.g99'));
      writeFileSync(join(dir, 'data', 'T', '2024-03-06.g99', 'ts.i64'), 'torn');
      mkdirSync(join(dir, 'data', 'T', '.removing-2024-03-06.g0.4242.1'));
      writeFileSync(join(dir, 'data', 'T', '.removing-2024-03-06.g0.4242.1', 'ts.i64'), 'old');
      writeFileSync(join(dir, 'manifest.json.tmp-12345'), '{"broken":');
    };
    leave();
    // While another writer holds the lock, opening neither waits for it nor touches its folders.
    let during: Database | undefined;
    const waits: number[] = [];
    withWriteLock(dir, () => {
      let now = 0;
      const restore = useLockClock({ now: () => now, sleep: (ms) => void (waits.push(ms), (now += ms)) });
      try {
        during = Database.open(dir);
      } finally {
        restore();
      }
    });
    expect(waits).toEqual([]); // it did not pause for the lock (a lock wait pauses through the clock)
    expect(during!.partition('T', '2024-03-06')!.rows).toBe(3);
    expect(existsSync(join(dir, 'data', 'T', '2024-03-06.g99'))).toBe(true);
    // The next open removes what no manifest names; the data stays as it was.
    const reader = Database.open(dir);
    expect(reader.partition('T', '2024-03-06')!.rows).toBe(3);
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(existsSync(join(dir, 'manifest.json.tmp-12345'))).toBe(false);
    // set aside at once (readers no longer find it), deleted from disk off the open's path
    expect(readdirSync(join(dir, 'data', 'T')).filter((f) => !f.startsWith('.'))).toEqual(['2024-03-06.g1']);
    await reader.removals();
    expect(readdirSync(join(dir, 'data', 'T'))).toEqual(['2024-03-06.g1']);
    // A commit does the same for a writer that died while this one was open.
    leave();
    reader.commit({ partitions: [{ table: 'T', key: '2024-03-07', data: sample().take(Int32Array.of(0)) }] });
    await reader.removals();
    expect(readdirSync(join(dir, 'data', 'T')).sort()).toEqual(['2024-03-06.g1', '2024-03-07.g2']);
  });

  it('removes superseded folders past their grace period when opened, not before', async () => {
    const dir = join(tempDir(), 'db');
    const db = Database.create(dir, allTypesSchema());
    db.commit({ partitions: [{ table: 'T', key: '2024-03-06', data: sample() }] });
    db.commit({ partitions: [{ table: 'T', key: '2024-03-06', data: sample().take(Int32Array.of(0)) }] });
    // the first folder is retired, kept for readers of other threads and processes
    expect(readdirSync(join(dir, 'data', 'T')).sort()).toEqual(['2024-03-06.g1', '2024-03-06.g2']);
    Database.open(dir, { retireMs: 60_000 });
    expect(readdirSync(join(dir, 'data', 'T')).sort()).toEqual(['2024-03-06.g1', '2024-03-06.g2']);
    const later = Database.open(dir, { retireMs: 0 });
    await later.removals();
    expect(readdirSync(join(dir, 'data', 'T'))).toEqual(['2024-03-06.g2']);
    expect(later.partition('T', '2024-03-06')!.rows).toBe(1);
    expect((JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { retired?: unknown[] }).retired).toEqual([]);
  });

  it('shows a commit to another open Database (another process) after refresh', () => {
    const dir = join(tempDir(), 'db');
    const writer = Database.create(dir, allTypesSchema());
    const reader = Database.open(dir);
    expect(reader.partitionKeys('T')).toEqual([]);
    writer.commit({ partitions: [{ table: 'T', key: '2024-03-06', data: sample() }] });
    reader.refresh();
    expect(reader.partitionKeys('T')).toEqual(['2024-03-06']);
    expect(reader.rowCount('T')).toBe(3);
  });

  it('stores and renders longs over the whole int64 range exactly', () => {
    const dir = join(tempDir(), 'db');
    const db = Database.create(dir, allTypesSchema());
    const big = [9223372036854775807n, -9223372036854775807n, 2n ** 53n + 1n];
    const t = sample().with('l', { type: 'long', data: BigInt64Array.from(big) });
    db.commit({ partitions: [{ table: 'T', key: '2024-03-06', data: t }] });
    const p = Database.open(dir).partition('T', '2024-03-06')!;
    const l = p.column('l');
    expect(l.type).toBe('long');
    // storage order: A@1 (row 1), A@DAY-1 (row 2), B@5 (row 0)
    expect([...(l as { data: BigInt64Array }).data]).toEqual([big[1], big[2], big[0]]);
    const text = textCells(l, 'UTC');
    expect([text(0), text(1), text(2)]).toEqual(['-9223372036854775807', '9007199254740993', '9223372036854775807']);
  });

  it('refuses to open a folder that is not a database, and to create over one that is not empty', () => {
    const dir = tempDir();
    expect(() => Database.open(dir)).toThrow(/is not a Tickscope database \(no schema.json\); create one with: tickscope init --db/);
    writeFileSync(join(dir, 'x'), '');
    expect(() => Database.create(dir)).toThrow(/already exists and is not empty/);
  });

  it('validates schema.json naming table and field', () => {
    const bad = (doc: unknown): string => {
      try {
        schemaFromJson(doc);
      } catch (e) {
        return (e as TickscopeError).message;
      }
      return '';
    };
    expect(bad({ tables: [{ name: 'X', kind: 'partitioned', columns: [{ name: 'a', type: 'text' }] }] })).toMatch(
      /table X: column a has type "text"; expected one of timestamp/,
    );
    expect(bad({ tables: [{ name: 'X', kind: 'partitioned', timeColumn: 'a', columns: [{ name: 'a', type: 'float' }] }] })).toMatch(
      /table X: timeColumn "a" must name a timestamp column/,
    );
    expect(bad({ tables: [{ name: 'X', kind: 'reference', columns: [{ name: 'a', type: 'symbol' }], foreignKeys: { a: 'Nope' } }] })).toMatch(
      /foreign key a references Nope, which is not a reference table/,
    );
  });

  it('validates config.json naming the item', () => {
    const bad = (doc: unknown): string => {
      try {
        configFromJson(doc);
      } catch (e) {
        return (e as TickscopeError).message;
      }
      return '';
    };
    expect(bad({ timeColBuffer: 'an hour' })).toMatch(/timeColBuffer "an hour" must be a timespan/);
    expect(bad({ weekendDays: ['Sat'] })).toMatch(/weekendDays has "Sat"; expected day names Sunday/);
    expect(bad({ filterRules: { r: { column: 'conditions' } } })).toMatch(/filterRules.r needs "include" or "exclude"/);
    expect(bad({ defaultSummaryFunctions: ['nope'] })).toMatch(/names nope, which is not in summaryFunctions/);
    expect(bad({ colour: 'blue' })).toMatch(/colour is not a config item/);
    expect(bad({ summaryFunctions: { x: { tree: ['avg', 'durationMins'], kind: 'percent' } } })).toMatch(/summaryFunctions.x.kind is "percent"; expected one of bps, pct/);
    expect(bad({ summaryFunctions: { x: { tree: ['avg', 'durationMins'], adverse: 'up' } } })).toMatch(/summaryFunctions.x.adverse is "up"; expected "high", "low" or null/);
    expect(bad({ summaryFunctions: { x: { kind: 'bps' } } })).toMatch(/summaryFunctions.x.tree must be a parse tree/);
    expect(bad({ compositeTickerMap: { 'VOD.L': 3 } })).toMatch(/compositeTickerMap must be an object of stored identifier -> composite identifier/);
    // a bare tree is a plain number; the object form carries kind, adverse direction and doc
    const c = configFromJson({ summaryFunctions: { a: ['avg', 'durationMins'], b: { tree: ['avg', 'vwapSlippage'], kind: 'bps', adverse: 'high' } } });
    expect(c.summaryFunctions).toEqual({
      a: { tree: ['avg', 'durationMins'], kind: 'number', adverse: null, doc: '' },
      b: { tree: ['avg', 'vwapSlippage'], kind: 'bps', adverse: 'high', doc: '' },
    });
    expect(c.defaultSummaryFunctions).toEqual(['a', 'b']);
    expect(configFromJson({ timeColBuffer: '0D00:00' }).timeColBuffer).toBe(0n);
  });

  it('lets one writer at a time hold the write lock, waiting for a live one and taking over a dead one', async () => {
    const dir = tempDir();
    // A lock left by a process that has exited is taken over.
    writeFileSync(join(dir, '.write.lock'), '999999999');
    expect(withWriteLock(dir, () => 'ran')).toBe('ran');
    expect(existsSync(join(dir, '.write.lock'))).toBe(false);
    // A lock held by a live process is waited for, then refused with its pid: on a clock the test
    // drives, the writer pauses again and again (looking at the lock after each pause) until 300 ms
    // have passed on that clock, and no further
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    let now = 0;
    const waits: number[] = [];
    const restore = useLockClock({ now: () => now, sleep: (ms) => void (waits.push(ms), (now += ms)) });
    try {
      writeFileSync(join(dir, '.write.lock'), `${sleeper.pid}:0`);
      expect(() => withWriteLock(dir, () => 'ran', { waitMs: 300 })).toThrow(new RegExp(`being written by process ${sleeper.pid}; waited 300 ms`));
      expect(waits.length).toBeGreaterThan(1);
      expect(now).toBeGreaterThanOrEqual(300);
      expect(now - waits.at(-1)!).toBeLessThan(300);
    } finally {
      restore();
      sleeper.kill();
    }
    // A lock held by this process (another thread of it) is never taken over.
    writeFileSync(join(dir, '.write.lock'), `${process.pid}:7`);
    expect(() => withWriteLock(dir, () => 'ran', { waitMs: 100 })).toThrow(/being written by another thread \(7\) of this process/);
    expect(readFileSync(join(dir, '.write.lock'), 'utf8')).toBe(`${process.pid}:7`);
  });
});
