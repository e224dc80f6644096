/**
 * How many rows a query will read, estimated on the thread that queues it from what is already in
 * memory or tiny to read once (the manifest, each partition's `_meta.json`: its rows and identifier
 * runs): the executor takes queries estimated small before larger ones that wait, so a one-hour
 * getTicks of one instrument never waits behind a month of getStats (SPEC 10, issue 25's load).
 * An estimate, not a plan: rows of the partitions the window touches, times the share of the day it
 * covers, of the listed identifiers only. Anything it cannot tell (a bad argument, a write) is
 * Infinity: the query waits its turn and reports its own error.
 */
import { NEG_INF_TS, NS_PER_DAY, partitionStartNs, POS_INF_TS } from '../core/time.js';
import type { Engine } from '../engine.js';
import { queryBase } from '../ops/select/query.js';
import { scope } from '../registry/args.js';
import { decodeArgs } from '../registry/decode.js';
import { operationByName } from '../operations/index.js';

const DAY = Number(NS_PER_DAY);
/** ms of each granularityUnit (a day as 24 hours: an estimate). */
const UNIT_MS: Readonly<Record<string, number>> = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Rows `operation` with these (raw) arguments will read, estimated; Infinity when unknown. */
export function estimateRows(engine: Engine, operation: string, rawArgs: unknown): number {
  try {
    const op = operationByName(operation);
    if (op.writes) return Infinity; // a write never takes the small-query lane
    const args = decodeArgs(op, rawArgs);
    const db = engine.assembly(args.get(scope.name));
    const { t, window, idList } = queryBase(db, args);
    if (t.kind === 'reference') return db.reference(t.name)?.rows ?? 0;
    let rows = 0;
    const from = window.start === NEG_INF_TS ? -Infinity : Number(window.start);
    const to = window.end === POS_INF_TS ? Infinity : Number(window.end);
    for (const key of db.partitionKeys(t.name)) {
      const dayStart = Number(partitionStartNs(key));
      // the share of the partition's day the window covers (a timeCol other than the partition's reads more: unknown, so whole days)
      const share = Math.max(0, Math.min(to, dayStart + DAY) - Math.max(from, dayStart)) / DAY;
      if (share <= 0) continue;
      const p = db.partition(t.name, key);
      if (!p) continue;
      let inPart = p.rows;
      if (idList) {
        inPart = 0;
        for (const id of idList) {
          const r = p.idRanges.get(id);
          if (r) inPart += r[1] - r[0];
        }
      }
      rows += inPart * share;
    }
    // time buckets (as the declaration names their arguments): a fine granularity over a long window
    // makes many cells from few rows (and racking makes every one a row), so the buckets count too
    const unit = op.buckets ? args.value(op.buckets.unit) : undefined;
    if (typeof unit === 'string' && op.buckets) {
      const count = args.value(op.buckets.size);
      const size = (typeof count === 'number' ? count : 1) * (UNIT_MS[unit] ?? 1) * 1e6;
      const buckets = Number.isFinite(from) && Number.isFinite(to) && size > 0 ? (to - from) / size : Infinity;
      rows = Math.max(rows, buckets * Math.max(1, idList?.length ?? 1));
    }
    return rows;
  } catch {
    return Infinity;
  }
}
