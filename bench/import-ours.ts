/**
 * The import case, Tickscope's side: a fresh process opens a database and imports a CSV file into a
 * table, as `tickscope import` does (importFile: parse, checks, the durable atomic append), and
 * reports that time (module loading and node's start-up excluded). Argument: JSON { db, table, file }.
 */
import { Database } from '../engine/storage/database.js';
import { importFile } from '../engine/storage/import.js';

const input = JSON.parse(process.argv[2]!) as { db: string; table: string; file: string };
const started = performance.now();
const report = importFile(Database.open(input.db), input.table, input.file);
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, rows: report.rows, partitions: report.partitions })}\n`);
