/** Appending rows to a table in one atomic commit (import, generateOrderAnalytics). */
import { basename } from 'node:path';
import { type Column, gather, int32Pairs } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import { formatDate, NS_PER_DAY, NULL_TS, POS_INF_TS, splitDay } from '../core/time.js';
import { Table } from '../core/table.js';
import type { Database, Partition } from './database.js';
import { type ImportRecord, type RowHashes, rowHashes, rowKey, setHash } from './import-hash.js';
import type { RowSource } from './row-source.js';
import type { Changes } from './source.js';
import type { TableSchema } from './schema.js';

/** All columns of a stored partition as a table (through the column cache). */
export function loadAll(t: TableSchema, p: RowSource): Table {
  return partitionTable(t, p, (name) => p.column(name));
}

/** All columns of a stored partition that a commit rewrites: read outside the column cache where the source can (Partition.columnUncached). */
export function loadForRewrite(t: TableSchema, p: RowSource): Table {
  return partitionTable(t, p, (name) => (p.columnUncached ? p.columnUncached(name) : p.column(name)));
}

function partitionTable(t: TableSchema, p: RowSource, column: (name: string) => Column): Table {
  return new Table(
    t.columns.map((c) => c.name),
    t.columns.map((c) => column(c.name)),
    p.rows,
  );
}

/**
 * Row indices of `rows` grouped by the UTC date of the table's time column. Rows mostly follow each
 * other within a day, so each row is compared with the bounds of the last row's day (int64 words, no
 * BigInt) and only a row outside them pays for an exact division.
 */
export function splitByPartition(t: TableSchema, rows: Table): Map<string, Int32Array> {
  const time = rows.col(t.timeColumn!);
  if (time.type !== 'timestamp') throw new Error(`${t.name}.${t.timeColumn} is not a timestamp column`);
  const pairs = int32Pairs(time.data);
  const n = rows.length;
  const slotOf = new Map<number, number>(); // day -> slot
  const days: number[] = [];
  const slots = new Int32Array(n);
  // the current day as [first, last] in int64 words (hi signed, lo unsigned)
  let slot = -1;
  let firstHi = 0;
  let firstLo = 0;
  let lastHi = 0;
  let lastLo = 0;
  for (let i = 0; i < n; i++) {
    const hi = pairs[2 * i + 1]!;
    const lo = pairs[2 * i]! >>> 0;
    const inDay = slot >= 0 && (hi > firstHi || (hi === firstHi && lo >= firstLo)) && (hi < lastHi || (hi === lastHi && lo <= lastLo));
    if (!inDay) {
      if (hi === -2147483648 && lo === 0) {
        throw new TickscopeError('importFailed', `row ${i + 1}: ${t.timeColumn} is null; every ${t.name} row needs its time partition column`);
      }
      const day = splitDay(time.data[i]!).days;
      let s = slotOf.get(day);
      if (s === undefined) {
        slotOf.set(day, (s = days.length));
        days.push(day);
      }
      slot = s;
      // the day's first and last nanosecond, within int64 and past its null (so a null row is
      // never in a day, and reaches the check above)
      const start = BigInt(day) * NS_PER_DAY;
      const first = start <= NULL_TS ? NULL_TS + 1n : start;
      const last = start + NS_PER_DAY - 1n > POS_INF_TS ? POS_INF_TS : start + NS_PER_DAY - 1n;
      firstHi = Number(first >> 32n);
      firstLo = Number(BigInt.asUintN(32, first));
      lastHi = Number(last >> 32n);
      lastLo = Number(BigInt.asUintN(32, last));
    }
    slots[i] = slot;
  }
  // rows of each day, in row order (a counting sort by slot)
  const at = new Int32Array(days.length + 1);
  for (let i = 0; i < n; i++) at[slots[i]! + 1]!++;
  for (let d = 0; d < days.length; d++) at[d + 1]! += at[d]!;
  const all = new Int32Array(n);
  const next = at.slice(0, days.length);
  for (let i = 0; i < n; i++) all[next[slots[i]!]!++] = i;
  return new Map(days.map((day, d) => [formatDate(day), all.subarray(at[d]!, at[d + 1]!)]));
}

/** The changes that append `rows` (columns in schema order) to a table. */
export function appendChanges(db: Database, t: TableSchema, rows: Table): Changes {
  const defs = t.columns;
  if (t.kind === 'reference') {
    const existing = db.reference(t.name);
    const data = existing ? Table.concat(defs, [loadForRewrite(t, existing), rows]) : rows;
    return { references: [{ table: t.name, data }] };
  }
  const partitions: Array<{ table: string; key: string; data: Table }> = [];
  for (const [key, idx] of splitByPartition(t, rows)) {
    // one day's rows only (the usual import): the rows as they are, not a copy
    const fresh = idx.length === rows.length ? rows : new Table(rows.names, rows.columns.map((c) => gather(c, idx)), idx.length);
    const existing = db.partition(t.name, key);
    partitions.push({ table: t.name, key, data: existing ? Table.concat(defs, [loadForRewrite(t, existing), fresh]) : fresh });
  }
  return { partitions };
}

/** What to do with rows an earlier import wrote to the same partitions (import-hash.ts). */
export type ReimportChoice = 'skip' | 'replace' | 'append';
export const REIMPORT_CHOICES: readonly ReimportChoice[] = ['skip', 'replace', 'append'];

/** A partition (or reference table) to which an earlier import wrote rows the same as a file's of this one. */
export interface ReimportedPartition {
  readonly table: string;
  /** The partition's date, or `reference`. */
  readonly key: string;
  /** Rows of this import found there already. */
  readonly rows: number;
  /** When the earlier import wrote them (ISO 8601, UTC; the earliest when several). */
  readonly at: string;
  /** The files of the earlier import they came from. */
  readonly files: readonly string[];
}

/** What an import wrote. */
export interface ImportOutcome {
  /** False when it found a re-import and was given no choice: nothing was written. */
  readonly written: boolean;
  /** Rows written. */
  readonly rows: number;
  /** Partitions written (dates; `reference` for a reference table). */
  readonly partitions: readonly string[];
  readonly reimported: readonly ReimportedPartition[];
  /** Rows not written because they were a re-import and the choice was skip. */
  readonly skippedRows: number;
}

/** What an import says of itself: its files and how many rows each gave (in row order), and the choice for re-imports. */
export interface ImportWrite {
  /** The files the rows came from, each with its row count (summing to the rows); absent: one unnamed source. */
  readonly files?: ReadonlyArray<{ readonly path: string; readonly rows: number }>;
  /** Absent: a re-import writes nothing and the outcome lists the partitions. */
  readonly reimport?: ReimportChoice;
}

/**
 * What a re-import with no choice says: each partition, when and from which files its rows came, and
 * the choices (`flag` names them as the caller takes them: `--reimport` on the command line).
 */
export function reimportMessage(reimported: readonly ReimportedPartition[], flag: string): string {
  const shown = reimported.slice(0, 10).map((r) => {
    const files = r.files.length > 3 ? `${r.files.slice(0, 3).join(', ')} and ${r.files.length - 3} more` : r.files.join(', ');
    return `${r.table} ${r.key} (${r.rows.toLocaleString('en-US')} rows, imported ${r.at}${files ? ` from ${files}` : ''})`;
  });
  const more = reimported.length > shown.length ? ` and ${reimported.length - shown.length} more partitions` : '';
  return `these rows were imported before: ${shown.join('; ')}${more}. Nothing was written; choose ${flag} skip (leave those rows as they are), replace (take the earlier import's rows out, then write these) or append (write them again)`;
}

/** Thrown inside the commit to leave it unwritten: a re-import with no choice, or nothing left to write. */
class Unwritten extends Error {}

/**
 * Imports rows into a table in one atomic commit, recording in each partition written what each file
 * wrote there (import-hash.ts). A file whose rows in a partition are the same (count and hash) as
 * rows an earlier import wrote there is a re-import, alone or among new files. With no choice nothing
 * is written and the outcome lists the partitions; `skip` leaves those rows out (the rest is written);
 * `replace` takes the earlier rows out (one stored row for each imported row with the same values)
 * and writes these; `append` writes them again. Checked under the write lock, against the newest
 * partitions.
 */
export function importRows(db: Database, tableName: string, rows: Table, w: ImportWrite = {}): ImportOutcome {
  const t = db.table(tableName);
  const at = new Date().toISOString();
  const hashes = rowHashes(rows);
  // each row's file (its place in w.files)
  const fileOf = new Int32Array(rows.length);
  const names: string[] = [];
  let r0 = 0;
  for (const [k, f] of (w.files ?? []).entries()) {
    fileOf.fill(k, r0, Math.min(rows.length, r0 + f.rows));
    r0 += f.rows;
    names.push(basename(f.path));
  }
  if (w.files && r0 !== rows.length) throw new Error(`importRows: the files give ${r0} rows, the table has ${rows.length}`);
  // per row: 1 written, 2 a re-import, 3 both (a re-import written again: appended or replacing)
  const fate = new Uint8Array(rows.length);
  let reimported: ReimportedPartition[] = [];
  let skippedRows = 0;
  let written = 0;
  const keys: string[] = [];
  /** The new data and records of one partition (rows `idx` of rows), or undefined when none of it is written. */
  const plan = (key: string, idx: Int32Array | undefined, existing: Partition | undefined): { data: Table; imports: ImportRecord[] } | undefined => {
    const n = idx ? idx.length : rows.length;
    const all = idx ?? Int32Array.from({ length: n }, (_, k) => k);
    // the partition's rows by file (a counting sort: each file's rows in row order)
    const nFiles = Math.max(1, names.length);
    const at0 = new Int32Array(nFiles + 1);
    for (let k = 0; k < n; k++) at0[fileOf[all[k]!]! + 1]!++;
    for (let f = 0; f < nFiles; f++) at0[f + 1]! += at0[f]!;
    const grouped = new Int32Array(n);
    const next = at0.slice(0, nFiles);
    for (let k = 0; k < n; k++) grouped[next[fileOf[all[k]!]!]!++] = all[k]!;
    const earlier = existing?.imports ?? [];
    const matched = new Set<ImportRecord>();
    const records: ImportRecord[] = [];
    let again = 0;
    let kept = 0;
    for (let f = 0; f < nFiles; f++) {
      const list = grouped.subarray(at0[f]!, at0[f + 1]!);
      if (list.length === 0) continue;
      const rec: ImportRecord = { rows: list.length, hash: setHash(hashes, list), at, ...(names[f] !== undefined ? { file: names[f] } : {}) };
      const same = earlier.find((e) => !matched.has(e) && e.rows === rec.rows && e.hash === rec.hash);
      if (same) {
        matched.add(same);
        again += list.length;
        for (const i of list) fate[i] = 2;
        if (w.reimport === 'skip' || w.reimport === undefined) continue;
      }
      for (const i of list) fate[i] = fate[i] === 2 ? 3 : 1;
      kept += list.length;
      records.push(rec);
    }
    if (matched.size) {
      const ats = [...matched].map((e) => e.at).sort();
      reimported.push({ table: t.name, key, rows: again, at: ats[0]!, files: [...new Set([...matched].map((e) => e.file ?? ''))].filter((x) => x !== '') });
    }
    if (w.reimport === 'skip') skippedRows += again;
    if (kept === 0) return undefined;
    keys.push(key);
    written += kept;
    // the rows written, in row order (fate 1 or 3), and the re-imported ones (2 or 3)
    const keep = new Int32Array(kept);
    const reimportedRows: number[] = [];
    let o = 0;
    for (let k = 0; k < n; k++) {
      const i = all[k]!;
      if (fate[i]! & 1) keep[o++] = i;
      if (fate[i]! & 2) reimportedRows.push(i);
    }
    const fresh = kept === rows.length ? rows : new Table(rows.names, rows.columns.map((c) => gather(c, keep)), kept);
    if (!existing) return { data: fresh, imports: records };
    let old = loadForRewrite(t, existing);
    let stays = earlier;
    if (w.reimport === 'replace' && matched.size) {
      old = withoutRows(old, hashes, reimportedRows);
      stays = earlier.filter((e) => !matched.has(e));
    }
    return { data: Table.concat(t.columns, [old, fresh]), imports: [...stays, ...records] };
  };
  try {
    db.commit(() => {
      reimported = [];
      fate.fill(0);
      skippedRows = 0;
      written = 0;
      keys.length = 0;
      if (t.kind === 'reference') {
        const p = plan('reference', undefined, db.reference(t.name));
        if (!p || (w.reimport === undefined && reimported.length)) throw new Unwritten();
        return { references: [{ table: t.name, ...p }] };
      }
      const partitions: Array<{ table: string; key: string; data: Table; imports: ImportRecord[] }> = [];
      for (const [key, idx] of splitByPartition(t, rows)) {
        const p = plan(key, idx, db.partition(t.name, key));
        if (p) partitions.push({ table: t.name, key, ...p });
      }
      if ((w.reimport === undefined && reimported.length) || partitions.length === 0) throw new Unwritten();
      return { partitions };
    });
  } catch (e) {
    if (!(e instanceof Unwritten)) throw e;
    // every row skipped (or none at all): nothing to write, and nothing to ask
    if (w.reimport !== undefined || reimported.length === 0) return { written: true, rows: 0, partitions: [], reimported, skippedRows };
    return { written: false, rows: 0, partitions: [], reimported, skippedRows: 0 };
  }
  return { written: true, rows: written, partitions: keys, reimported, skippedRows };
}

/** The stored rows less one row for each row `rows` of `hashes` with the same values (the earlier import's copy). */
function withoutRows(stored: Table, hashes: RowHashes, rows: readonly number[]): Table {
  const counts = new Map<number, number>();
  for (const i of rows) {
    const k = rowKey(hashes, i);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const own = rowHashes(stored);
  const keep: number[] = [];
  for (let i = 0; i < stored.length; i++) {
    const k = rowKey(own, i);
    const c = counts.get(k);
    if (c) counts.set(k, c - 1);
    else keep.push(i);
  }
  const idx = Int32Array.from(keep);
  return new Table(stored.names, stored.columns.map((c) => gather(c, idx)), idx.length);
}

/** Appends rows to a table atomically; returns the partitions written. */
export function appendRows(db: Database, tableName: string, rows: Table): string[] {
  const t = db.table(tableName);
  const changes = db.commit(() => appendChanges(db, t, rows));
  return [...(changes.partitions ?? []).map((p) => p.key), ...(changes.references ?? []).map(() => 'reference')];
}
