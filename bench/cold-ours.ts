/**
 * The cold case, Tickscope's side: a fresh process opens the database and runs the ticks-1i-1h query,
 * then reports the time since the process started (module loading included). Argument: JSON
 * { db, ctx } (the database folder and the case context).
 */
import { Engine } from '../engine/engine.js';
import type { CaseContext } from './case-query.js';
import { tickQueries } from './cases-ticks.js';

const input = JSON.parse(process.argv[2]!) as { db: string; ctx: CaseContext };
const q = tickQueries(input.ctx)['ticks-1i-1h'];
const engine = Engine.open([input.db]);
const table = engine.call(q.op, q.args).table;
void table.columns; // every column in its own array, as DuckDB's side reads its result into JS
const ms = performance.now();
process.stdout.write(`${JSON.stringify({ ms, rows: table.length })}\n`);
