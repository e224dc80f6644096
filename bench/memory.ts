/**
 * The memory case (run with --expose-gc): a fresh process opens the database, measures RSS, runs
 * getTicks over Trade for one whole date (all instruments, all columns), holds the result and
 * measures RSS again (after a full GC each time). Then it runs the same query 10 more times, dropping
 * the previous result before each, and measures RSS after each. Raw bytes are the sizes of the
 * partition folder's column files as stored (data and dictionary files of every column; not
 * _meta.json or other partition-level files such as a stored row order).
 * Argument: JSON { db, date }. Prints one JSON line.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Table } from '../engine/core/table.js';
import { Database } from '../engine/storage/database.js';
import { Engine } from '../engine/engine.js';
import { kdbDate, nextDate } from './case-query.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('bench/memory: run node with --expose-gc');
const collect = (): void => {
  gc();
  gc();
};

const input = JSON.parse(process.argv[2]!) as { db: string; date: string };
const engine = new Engine([Database.open(input.db)]);
const partition = engine.defaultDatabase.partition('Trade', input.date);
if (!partition) throw new Error(`bench/memory: no Trade partition ${input.date}`);
// column files are named <column>.<kind>; the rest (_meta.json and any other partition-level file) is not column data
const columnNames = new Set(engine.defaultDatabase.table('Trade').columns.map((c) => c.name));
const all = readdirSync(partition.dir);
const files = all.filter((f) => columnNames.has(f.slice(0, f.indexOf('.'))));
const excluded = all.filter((f) => !files.includes(f));
const rawBytes = files.reduce((s, f) => s + statSync(join(partition.dir, f)).size, 0);
const args = { table: 'Trade', startTS: kdbDate(input.date), endTS: kdbDate(nextDate(input.date)) };
const usage = (): NodeJS.MemoryUsage => process.memoryUsage();

collect();
const before = usage();
let result: Table | null = engine.call('.fsi.getTicks', args).table;
collect();
const held = usage();
const rows = result.length;

const repeats: NodeJS.MemoryUsage[] = [];
for (let k = 0; k < 10; k++) {
  result = null;
  collect();
  result = engine.call('.fsi.getTicks', args).table;
  collect();
  repeats.push(usage());
}
// last, the same result with every column gathered into its own array (what a kernel or a chart over
// every column makes of it); as returned it is a row index over the stored columns
void result.columns;
collect();
const gathered = usage();
process.stdout.write(`${JSON.stringify({ rows, heldRows: result.length, rawBytes, files: files.length, excluded, before, held, gathered, repeats })}\n`);
