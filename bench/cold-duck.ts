/**
 * The cold case, DuckDB's side: a fresh process imports @duckdb/node-api, opens the bench's .duckdb
 * file and runs the ticks-1i-1h SQL, reading the result's columns into JS as the warm cases do, then
 * reports the time since the process started. Argument: JSON { file, threads, ctx }.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import type { CaseContext } from './case-query.js';
import { tickQueries } from './cases-ticks.js';
import { duckQuery } from './duck-read.js';

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]!) as { file: string; threads: number; ctx: CaseContext };
  const q = tickQueries(input.ctx)['ticks-1i-1h'];
  const instance = await DuckDBInstance.create(input.file, { access_mode: 'READ_ONLY', threads: String(input.threads) });
  const conn = await instance.connect();
  const result = await duckQuery(conn, q.sql);
  const ms = performance.now();
  process.stdout.write(`${JSON.stringify({ ms, rows: result.rows })}\n`);
  conn.closeSync();
  instance.closeSync();
}

void main();
