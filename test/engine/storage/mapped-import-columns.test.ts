/**
 * How a mapped import (storage/mapped-import.ts) makes each table column, at the edges of its fast
 * paths: counts of ms/us/ns since a file date's midnight (a wall-clock time of a zone: ordinary days,
 * DST days and the days next to them, times past the day, nulls) or since the epoch (beyond 2^53 too),
 * against instants worked out here with Temporal; constants (scaled, cased, empty), a source column
 * cased (two spellings becoming one value), and the columns the mapping does not name.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { type Column, symbolText } from '../../../engine/core/column.js';
import { dictStrings } from '../../../engine/core/dict.js';
import type { Table } from '../../../engine/core/table.js';
import { Database } from '../../../engine/storage/database.js';
import { importMapFromJson } from '../../../engine/storage/import-map.js';
import { importMapped, readMapped } from '../../../engine/storage/mapped-import.js';
import { standardSchema } from '../../../engine/storage/schema.js';
import { tempDir } from '../../helpers/db.js';

const TRADE = standardSchema().tables.get('Trade')!;
const NULL = -9223372036854775808n;
const NY = 'America/New_York';

/** A headerless CSV at <dir>/aapl/<name>.csv, each line its cells and one more (so an empty first cell is no empty line), read as the mapping says. */
function read(map: Record<string, unknown>, name: string, lines: readonly string[]): Table {
  const dir = tempDir('tickscope-mapped-columns-');
  const file = join(dir, 'aapl', `${name}.csv`);
  mkdirSync(join(file, '..'), { recursive: true });
  const text = lines.map((l) => `${l},-\n`).join('');
  writeFileSync(file, text);
  return readMapped(importMapFromJson({ table: 'Trade', header: false, ...map }, 'm.json'), TRADE, file, Buffer.from(text));
}

const times = (t: Table): bigint[] => {
  const c = t.col('eventTimestamp');
  if (c.type !== 'timestamp') throw new Error('not a timestamp column');
  return [...c.data];
};

/** The instant of `count` units after midnight of `day` (yyyymmdd) as a wall-clock time of `zone` (Temporal's compatible rule). */
function wallInstant(day: string, count: bigint, unit: 'ms' | 'us' | 'ns', zone: string): bigint {
  const midnight = Temporal.PlainDateTime.from({ year: Number(day.slice(0, 4)), month: Number(day.slice(4, 6)), day: Number(day.slice(6)) });
  const ns = count * { ms: 1_000_000n, us: 1_000n, ns: 1n }[unit];
  const wall = midnight.add({ nanoseconds: Number(ns % 1_000_000_000n) }).add({ seconds: Number(ns / 1_000_000_000n) });
  return wall.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochNanoseconds;
}

describe('a mapped import makes its columns', () => {
  // ms since midnight: the day's start and end, 01:30 (twice on 2013-11-03), 02:30 (not on 2013-03-10),
  // the session, the next midnight, a time past the day, and an empty cell
  const ms = [0n, 1n, 3_599_999n, 5_400_000n, 9_000_000n, 34_200_457n, 86_399_999n, 86_400_000n, 90_000_000n];
  const days = ['20131008', '20131102', '20131103', '20131104', '20131106', '20130310', '20130308', '20130101'];

  for (const unit of ['ms', 'us', 'ns'] as const) {
    it(`counts of ${unit} since midnight of the file's date, a wall-clock time of the zone, on ordinary and DST days`, () => {
      const scale = { ms: 1n, us: 1_000n, ns: 1_000_000n }[unit];
      for (const zone of [NY, 'UTC', 'Asia/Kolkata']) {
        const map = {
          zone,
          columns: {
            eventTimestamp: { source: 0, unit, since: 'midnight', date: { path: '{name}', pattern: '^(\\d{8})' } },
            instrumentID: { path: '{dir}', case: 'upper' },
          },
        };
        for (const day of days) {
          const t = read(map, `${day}_trade`, [...ms.map((m) => String(m * scale)), '']);
          expect(times(t), `${unit} ${zone} ${day}`).toEqual([...ms.map((m) => wallInstant(day, m * scale, unit, zone)), NULL]);
        }
        // the session only (the fast path's whole file)
        const session = read(map, '20131008_trade', ['34200000', '34200457', '57599999'].map((m) => String(BigInt(m) * scale)));
        expect(times(session)).toEqual(['34200000', '34200457', '57599999'].map((m) => wallInstant('20131008', BigInt(m) * scale, unit, zone)));
      }
    });
  }

  it('counts since the epoch, within 2^53 and beyond it (wrapping as int64 does), negative and null', () => {
    const cases: Array<['ms' | 'us' | 'ns', string[]]> = [
      ['ms', ['0', '-1', '1381239000457', '9007199254740991', '9007199254740993', '-62135596800000']],
      ['us', ['1381239000457123', '-1', '9007199254740993']],
      ['ns', ['1381239000457123456', '9223372036854775807', '-5']],
    ];
    for (const [unit, cells] of cases) {
      const map = { columns: { eventTimestamp: { source: 0, unit }, instrumentID: { constant: 'X' } } };
      const unitNs = { ms: 1_000_000n, us: 1_000n, ns: 1n }[unit];
      expect(times(read(map, 'x', [...cells, ''])), unit).toEqual([...cells.map((c) => BigInt.asIntN(64, BigInt(c) * unitNs)), NULL]);
    }
  });

  it('constants (scaled, cased, empty), a cased source column, and nulls for the columns not named', () => {
    const map = {
      zone: 'UTC',
      columns: {
        eventTimestamp: { source: 0, unit: 'ms' },
        instrumentID: { constant: 'vod', case: 'upper' },
        price: { constant: '100', scale: 0.01 },
        volume: { constant: '7' },
        exchTime: { constant: '2024.03.06D09:30' },
        srcSys: { constant: '' },
        tradedExchange: { source: 1, case: 'lower' },
      },
    };
    const t = read(map, 'x', ['1000,Nasdaq', '2000,NASDAQ', '3000,', '4000,Arca']);
    const text = (c: Column): string[] => (c.type === 'symbol' ? Array.from({ length: t.length }, (_, i) => symbolText(c, i)) : []);
    expect(text(t.col('instrumentID'))).toEqual(['VOD', 'VOD', 'VOD', 'VOD']);
    expect(text(t.col('tradedExchange'))).toEqual(['nasdaq', 'nasdaq', '', 'arca']);
    expect(text(t.col('srcSys'))).toEqual(['', '', '', '']);
    expect(text(t.col('conditions'))).toEqual(['', '', '', '']);
    const price = t.col('price');
    expect(price.type === 'float' ? [...price.data] : null).toEqual([1, 1, 1, 1]);
    const volume = t.col('volume');
    expect(volume.type === 'long' ? [...volume.data] : null).toEqual([7n, 7n, 7n, 7n]);
    const exch = t.col('exchTime');
    expect(exch.type === 'timestamp' ? [...exch.data] : null).toEqual(Array(4).fill(1709717400000000000n));
    for (const name of ['sequenceNumber', 'accVol', 'tickCount']) {
      const c = t.col(name);
      expect(c.type === 'long' ? [...c.data] : null, name).toEqual([NULL, NULL, NULL, NULL]);
    }

    // stored: the two spellings that became one value are one dictionary entry
    const dir = tempDir('tickscope-mapped-columns-db-');
    const file = join(dir, 'files', 'x.csv');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '1000,Nasdaq\n2000,NASDAQ\n3000,\n4000,Arca\n');
    const db = Database.create(join(dir, 'db'));
    expect(importMapped(db, importMapFromJson({ table: 'Trade', header: false, ...map }, 'm.json'), [file], 'm.json').rows).toBe(4);
    const p = db.partition('Trade', db.partitionKeys('Trade')[0]!)!;
    const ex = p.column('tradedExchange');
    if (ex.type !== 'symbol') throw new Error('not a symbol column');
    expect(Array.from({ length: p.rows }, (_, i) => symbolText(ex, i)).sort()).toEqual(['', 'arca', 'nasdaq', 'nasdaq']);
    const entries = dictStrings(ex.dict);
    expect(new Set(entries).size).toBe(entries.length);
  });
});
