/**
 * getStats on generated data, checked against DuckDB (the test oracle) over the same rows: minute
 * bars, VWAP, moving windows, medians and spreads.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { payloadRows, tempDir } from '../../helpers/db.js';
import { duckRows, duckTable } from '../../helpers/duck.js';

const dir = join(tempDir(), 'demo');
generateDemo(dir, { days: 2, instruments: 5, tradesPerDay: 8000, seed: 21 });
const engine = Engine.open([dir]);
const day = engine.defaultDatabase.partitionKeys('Trade')[0]!;
const kdb = day.replace(/-/g, '.');
const START = `${kdb}D13:00`;
const END = `${kdb}D17:00`;
const startNs = BigInt(Date.parse(`${day}T13:00:00Z`)) * 1_000_000n;
let duck: DuckDBConnection;

beforeAll(async () => {
  duck = await duckTable(engine, { table: 'Trade', startTS: START, endTS: END }, ['eventTimestamp', 'instrumentID', 'price', 'volume']);
});
afterAll(() => duck?.closeSync());

const close = (a: unknown, b: unknown, what: string): void => {
  if (a === null || b === null || a === undefined || b === undefined) {
    expect(a ?? null, what).toBe(b ?? null);
    return;
  }
  expect(Math.abs((a as number) - (b as number)), `${what}: ${a} vs ${b}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b as number)));
};

function compare(ours: Array<Record<string, unknown>>, theirs: Array<Record<string, unknown>>, keys: string[], values: string[]): void {
  expect(ours.length).toBe(theirs.length);
  expect(ours.length).toBeGreaterThan(10);
  ours.forEach((row, i) => {
    for (const k of keys) expect(row[k], `row ${i} ${k}`).toBe(theirs[i]![k]);
    for (const v of values) close(row[v], theirs[i]![v], `row ${i} ${v}`);
  });
}

describe('getStats against DuckDB on demo data', () => {
  it('1-minute OHLC, volume and counts per instrument', async () => {
    const ours = payloadRows(engine, 'getStats', {
      table: 'Trade', startTS: START, endTS: END, granularityUnit: 'minute',
      analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'], agg: { n: ['count', 'i'] },
    }).map((r) => ({ ...r, bucket: Number((BigInt(Date.parse(`${(r['eventTimestamp'] as string).slice(0, 19)}Z`)) * 1_000_000n - startNs) / 60_000_000_000n) }));
    const theirs = await duckRows(
      duck,
      `SELECT (ns - ${startNs}) // 60000000000 AS bucket, instrumentID,
              arg_min(price, seq) FILTER (WHERE price IS NOT NULL) AS firstPrice, max(price) AS maxPrice, min(price) AS minPrice,
              arg_max(price, seq) FILTER (WHERE price IS NOT NULL) AS lastPrice, sum(volume) AS sumVolume, count(*) AS n
       FROM t GROUP BY ALL ORDER BY bucket, instrumentID`,
    );
    compare(ours, theirs, ['bucket', 'instrumentID', 'n'], ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume']);
  });

  it('VWAP, medians and spreads per instrument', async () => {
    const ours = payloadRows(engine, 'getStats', {
      table: 'Trade', startTS: START, endTS: END, analytics: ['vwap', 'medPrice'],
      agg: { dev: ['dev', 'price'], sdev: ['sdev', 'price'], var: ['var', 'price'], svar: ['svar', 'price'], conds: ['count', ['distinct', 'volume']] },
    });
    const theirs = await duckRows(
      duck,
      `SELECT instrumentID, sum(price * volume) / sum(volume) FILTER (WHERE price IS NOT NULL AND volume IS NOT NULL) AS vwap,
              median(price) AS medPrice, stddev_pop(price) AS dev, stddev_samp(price) AS sdev, var_pop(price) AS var, var_samp(price) AS svar,
              count(DISTINCT volume) AS conds
       FROM t GROUP BY instrumentID ORDER BY instrumentID`,
    );
    expect(ours.length).toBe(theirs.length);
    ours.forEach((row, i) => {
      expect(row['instrumentID']).toBe(theirs[i]!['instrumentID']);
      for (const v of ['vwap', 'medPrice', 'dev', 'sdev', 'var', 'svar', 'conds']) close(row[v], theirs[i]![v], `${row['instrumentID']} ${v}`);
    });
  });

  it('a 5-minute moving window on 1-minute buckets', async () => {
    const ours = payloadRows(engine, 'getStats', {
      table: 'Trade', startTS: START, endTS: END, granularityUnit: 'minute', movingWindowSize: '5',
      agg: { v: ['sum', 'volume'], n: ['count', 'i'], hi: ['max', 'price'], px: ['avg', 'price'] },
    }).map((r) => ({ ...r, bucket: Number((BigInt(Date.parse(`${(r['eventTimestamp'] as string).slice(0, 19)}Z`)) * 1_000_000n - startNs) / 60_000_000_000n) - 1 }));
    // Per-minute partials, then each bucket's window: the 5 minutes ending with it.
    const theirs = await duckRows(
      duck,
      `WITH m AS (SELECT (ns - ${startNs}) // 60000000000 AS minute, instrumentID, sum(volume) AS v, count(*) AS n, max(price) AS hi,
                         sum(price) AS sp, count(price) AS cp FROM t GROUP BY ALL),
            b AS (SELECT DISTINCT instrumentID, minute + k AS bucket FROM m, range(0, 5) r(k) WHERE minute + k < 240)
       SELECT b.bucket, b.instrumentID, sum(m.v) AS v, sum(m.n) AS n, max(m.hi) AS hi, sum(m.sp) / sum(m.cp) AS px
       FROM b JOIN m ON m.instrumentID = b.instrumentID AND m.minute BETWEEN b.bucket - 4 AND b.bucket
       GROUP BY ALL ORDER BY b.bucket, b.instrumentID`,
    );
    compare(ours, theirs, ['bucket', 'instrumentID', 'n'], ['v', 'hi', 'px']);
  });

  it('a moving median (rows listed per window) equals DuckDB\'s over the same rows', async () => {
    const ours = payloadRows(engine, 'getStats', {
      table: 'Trade', startTS: START, endTS: END, granularity: '10', granularityUnit: 'minute', movingWindowSize: '30', agg: { md: ['med', 'price'] },
    });
    const theirs = await duckRows(
      duck,
      `WITH r AS (SELECT (ns - ${startNs}) // 600000000000 AS b10, * FROM t),
            b AS (SELECT DISTINCT instrumentID, b10 + k AS bucket FROM r, range(0, 3) x(k) WHERE b10 + k < 24)
       SELECT b.bucket, b.instrumentID, median(r.price) AS md
       FROM b JOIN r ON r.instrumentID = b.instrumentID AND r.b10 BETWEEN b.bucket - 2 AND b.bucket
       GROUP BY ALL ORDER BY b.bucket, b.instrumentID`,
    );
    expect(ours.length).toBe(theirs.length);
    ours.forEach((row, i) => {
      expect(row['instrumentID']).toBe(theirs[i]!['instrumentID']);
      close(row['md'], theirs[i]!['md'], `row ${i}`);
    });
  });
});
