/** DuckDB as a test oracle: the same rows loaded into an in-memory DuckDB table. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Engine } from '../../engine/engine.js';
import { tempDir } from './db.js';

/**
 * A DuckDB table `t` holding the rows getTicks returns for `args` (in its order, numbered by `seq`),
 * with timestamps as TIMESTAMP_NS and also as `ns` (BIGINT nanoseconds).
 */
export async function duckTable(engine: Engine, args: Record<string, unknown>, columns: readonly string[]): Promise<DuckDBConnection> {
  const result = engine.call('getTicks', { ...args, columns: columns.filter((c) => c !== 'eventTimestamp') });
  const t = result.table;
  const ts = t.col('eventTimestamp') as { data: BigInt64Array };
  const lines = ['seq,ns,' + columns.filter((c) => c !== 'eventTimestamp').join(',')];
  const cells = columns.filter((c) => c !== 'eventTimestamp').map((c) => {
    const col = t.col(c);
    if (col.type === 'symbol') return (i: number): string => col.dict.get(col.codes[i]!);
    if (col.type === 'float' || col.type === 'long') return (i: number): string => (Number.isNaN(col.data[i]) ? '' : String(col.data[i]));
    throw new Error(`duckTable: unsupported column ${c}`);
  });
  for (let i = 0; i < t.length; i++) lines.push([i, ts.data[i], ...cells.map((f) => f(i))].join(','));
  const file = join(tempDir(), 'oracle.csv');
  writeFileSync(file, lines.join('\n') + '\n');
  const types = columns.filter((c) => c !== 'eventTimestamp').map((c) => `'${c}': '${t.col(c).type === 'symbol' ? 'VARCHAR' : 'DOUBLE'}'`);
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  await conn.run(`CREATE TABLE t AS SELECT *, make_timestamp_ns(ns) AS eventTimestamp FROM read_csv('${file}', header=true, columns={'seq':'BIGINT','ns':'BIGINT',${types.join(',')}})`);
  return conn;
}

/** Rows of a DuckDB query as plain objects (numbers as JS numbers). */
export async function duckRows(conn: DuckDBConnection, sql: string): Promise<Array<Record<string, unknown>>> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJS().map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}
