/**
 * DuckDB's side of the import-many case (import-many.ts): a fresh process imports @duckdb/node-api,
 * creates a database file at `threads`, runs the statement that reads the CSV files into a table
 * (`CREATE TABLE t AS SELECT ... FROM read_csv(glob, ...)`), `CHECKPOINT`s it (the table written to
 * the file and flushed), closes it and exits: the counterpart of `tickscope import --map` (start,
 * read and parse, write durably, exit). The bench reads the file back afterwards to check its values.
 * Argument: JSON DuckImportArg (command-timing.ts). The file must not exist (the timer's `before`).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckImportArg } from './command-timing.js';

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]!) as DuckImportArg;
  const instance = await DuckDBInstance.create(input.file, { threads: String(input.threads) });
  const conn = await instance.connect();
  await conn.run(input.sql);
  await conn.run('CHECKPOINT');
  conn.closeSync();
  instance.closeSync();
}

void main();
