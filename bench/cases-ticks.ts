/**
 * getTicks cases of npm run bench, each with the DuckDB query that returns the same rows (row counts
 * are checked before timing).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Engine } from '../engine/engine.js';

export interface BenchCase {
  readonly name: string;
  readonly ours: () => number;
  readonly duck: () => Promise<number>;
  /** Target ratio (ours / DuckDB) from the issue. */
  readonly target: number;
}

const rowsOf = async (duck: DuckDBConnection, sql: string): Promise<number> => (await duck.runAndReadAll(sql)).currentRowCount;

/** The getTicks cases over the first date of the data. */
export function tickCases(engine: Engine, duck: DuckDBConnection, ids: readonly string[], dates: readonly string[]): BenchCase[] {
  const first = dates[0]!;
  const last = dates[dates.length - 1]!;
  const kdb = (iso: string): string => iso.replace(/-/g, '.');
  const next = (iso: string): string => new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const one = ids[0]!;
  const ten = ids.slice(0, 10);
  const inList = ten.map((i) => `'${i}'`).join(',');
  const call = (args: Record<string, unknown>) => (): number => engine.call('.fsi.getTicks', { table: 'Trade', ...args }).table.length;
  return [
    {
      name: `1 instrument, 1 hour`,
      target: 0.5,
      ours: call({ idList: [one], startTS: `${kdb(first)}D15:00`, endTS: `${kdb(first)}D16:00` }),
      duck: () =>
        rowsOf(duck, `SELECT * FROM trade WHERE instrumentID = '${one}' AND eventTimestamp >= TIMESTAMP_NS '${first} 15:00:00' AND eventTimestamp < TIMESTAMP_NS '${first} 16:00:00' ORDER BY eventTimestamp, instrumentID`),
    },
    {
      name: `10 instruments, 1 day, filter volume>=500`,
      target: 1,
      ours: call({ idList: ten, startTS: kdb(first), endTS: kdb(next(first)), filter: [['>=', 'volume', '500']] }),
      duck: () =>
        rowsOf(duck, `SELECT * FROM trade WHERE instrumentID IN (${inList}) AND eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${next(first)}' AND volume >= 500 ORDER BY eventTimestamp, instrumentID`),
    },
    {
      name: `slice 14:30-15:00, ${dates.length} days, all`,
      target: 1,
      ours: call({ startTS: kdb(first), endTS: kdb(next(last)), temporality: 'slice', slice: ['14:30', '15:00'] }),
      duck: () =>
        rowsOf(duck, `SELECT * FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${next(last)}' AND CAST(eventTimestamp AS TIME) >= TIME '14:30:00' AND CAST(eventTimestamp AS TIME) < TIME '15:00:00' ORDER BY eventTimestamp, instrumentID`),
    },
    {
      name: `forward fill, 1 day, all, 4 columns`,
      target: 1,
      ours: call({ startTS: kdb(first), endTS: kdb(next(first)), fill: 'forward', columns: ['instrumentID', 'price', 'volume', 'conditions', 'exchTime'] }),
      duck: () =>
        rowsOf(
          duck,
          `SELECT eventTimestamp, instrumentID, last_value(price IGNORE NULLS) OVER w AS price, last_value(volume IGNORE NULLS) OVER w AS volume, last_value(conditions IGNORE NULLS) OVER w AS conditions, last_value(exchTime IGNORE NULLS) OVER w AS exchTime FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${next(first)}' WINDOW w AS (PARTITION BY instrumentID ORDER BY eventTimestamp ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) ORDER BY eventTimestamp, instrumentID`,
        ),
    },
  ];
}
