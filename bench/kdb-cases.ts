/**
 * The kdb+ cases of npm run bench (issue 29's Performance section): the bench's Trade table also
 * written as kdb+ HDBs (kdb-data.ts: uncompressed, zlib, zstd), the same queries timed on the native
 * database and on each HDB, and a year of date partitions opened cold.
 *
 * kdb-narrow, kdb-day, kdb-vwap (warm, as the bench's other warm cases): at each thread count N, the
 * native database and the HDB each behind an executor of N query workers (Executor.call, as `tickscope
 * serve` and the app run queries; an HDB is mounted by its layout, storage/mount.ts), their runs
 * interleaved (native, kdb+, native, ...), a full GC before each, medians after the warm-ups; values
 * checked equal first (the kdb+ answer's virtual `date` column left out). Ratio = kdb+ / native.
 * Warm, a worker keeps what it read: a partition's columns read whole, and a small LRU of decompressed
 * blocks (engine/storage/kdb/block-cache.ts), so a warm run of a compressed HDB may decompress nothing.
 *
 * So each compressed HDB is measured again where a query must decompress: "fresh", in this thread,
 * every partition opened again before each run (its files, their trailers and headers; the domains
 * (`sym`...) stay loaded) and the block cache emptied. The blocks the query decompressed are counted by
 * the reader's own hook (KdbReadOptions.onDecompress), and exactly those blocks (each once) are then
 * decompressed alone by the reader's decompressor (codecs.ts decompressKdbBlock), their stored bytes
 * read beforehand: bare decompression, timed interleaved with the fresh query. Printed: the query's
 * ms / bare decompression's ms (target <= 1.2), the decompressor's MB/s (uncompressed bytes out), and
 * the compression ratio of those blocks and of the whole HDB. The uncompressed HDB's fresh query is
 * printed beside them for reference (what opening the partitions and reading the rows costs without
 * decompressing), and what the compressed one adds to it, against bare decompression.
 *
 * kdb-year (cold): a 250-date-partition HDB (100 instruments, 400,000 trades a day) and its last day
 * alone; `tickscope call` of a narrow getTicks on each, spawned by the timer (command-timing.ts) and
 * timed whole beyond a bare node. Ratio = year / one partition (target <= 1.5). And what opening the
 * year HDB touches: a fresh process (kdb-open.ts) counts the files it opens and lists while it
 * mounts it (Engine.open), lists its tables, and answers the app's info().
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Column } from '../engine/core/column.js';
import type { Table } from '../engine/core/table.js';
import { Engine } from '../engine/engine.js';
import type { Executor } from '../engine/executor/executor.js';
import { BlockCache } from '../engine/storage/kdb/block-cache.js';
import { decompressKdbBlock } from '../engine/storage/kdb/codecs.js';
import { Domains } from '../engine/storage/kdb/domain.js';
import { openKdbFile } from '../engine/storage/kdb/file.js';
import { type KdbReadOptions, readFully } from '../engine/storage/kdb/io.js';
import { KdbPartition } from '../engine/storage/kdb/partition.js';
import { DATE_COLUMN, KdbSource } from '../engine/storage/kdb/source.js';
import type { RowSource } from '../engine/storage/row-source.js';
import type { Source } from '../engine/storage/source.js';
import { type CaseContext, kdbDate, nextDate } from './case-query.js';
import type { KdbWarmCaseId } from './cases.js';
import { checkValues, tableCells } from './cells.js';
import { median } from './command-timing.js';
import type { KdbHdb } from './kdb-data.js';

/** One kdb+ case's query: the same operation and arguments on both sides. */
export interface KdbQuery {
  readonly op: '.fsi.getTicks' | '.fsi.getStats';
  readonly args: Record<string, unknown>;
  /** Result columns the rows are ordered by (for the value check's ties). */
  readonly orderKeys: readonly number[];
}

/**
 * The queries: ticks-1i-1h's narrow query, a full day of every column, and stats-vwap-alldays' VWAP
 * written as its expression (`["wavg","volume","price"]`, the demo's named analytic): a kdb+ HDB
 * opened without a settings file has no analytics named for this table's columns (its roles are
 * guessed from kdb+ names: `size`, not `volume`), and the expression is what the name stands for.
 */
export function kdbQueries(ctx: CaseContext): Record<KdbWarmCaseId, KdbQuery> {
  const first = ctx.dates[0]!;
  const last = ctx.dates[ctx.dates.length - 1]!;
  return {
    'kdb-narrow': {
      op: '.fsi.getTicks',
      args: { table: 'Trade', idList: [ctx.ids[0]!], startTS: `${kdbDate(first)}D15:00`, endTS: `${kdbDate(first)}D16:00` },
      orderKeys: [0, 1],
    },
    'kdb-day': { op: '.fsi.getTicks', args: { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(first)) }, orderKeys: [0, 1] },
    'kdb-vwap': {
      op: '.fsi.getStats',
      args: { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(last)), agg: { vwap: ['wavg', 'volume', 'price'] } },
      orderKeys: [0],
    },
  };
}

/** What the kdb+ cases take from the bench's run. */
export interface KdbBenchContext {
  readonly runs: number;
  readonly warmups: number;
  readonly threadCounts: readonly number[];
  /** A full GC (outside the timings). */
  readonly gc: () => void;
  readonly log: (msg: string) => void;
  /** An executor of N query workers over a database folder, as the bench's warm cases run them. */
  readonly executor: (dir: string, workers: number) => Promise<Executor>;
}

interface SideTiming {
  readonly native: number;
  readonly kdb: number;
  /** kdb+ / native. */
  readonly ratio: number;
  readonly nativeRuns: number[];
  readonly kdbRuns: number[];
}

/** The fresh query (partitions opened again, block cache empty) against bare decompression of the blocks it decompressed. */
export interface FreshTiming {
  /** ms of the query, median. */
  readonly queryMs: number;
  readonly queryRuns: number[];
  /** Distinct blocks the query decompressed (of which stored raw: `rawBlocks`), and its hook calls per run (a block evicted and read again counts again). */
  readonly blocks: number;
  readonly rawBlocks: number;
  readonly decompressions: number;
  /** Bytes of those blocks: decompressed, and as stored. */
  readonly uncompressedBytes: number;
  readonly storedBytes: number;
  /** ms of decompressing them alone, median; null for an uncompressed HDB. */
  readonly bareMs: number | null;
  readonly bareRuns: number[];
  /** Decompressed MB (10^6 bytes) per second of bare decompression. */
  readonly mbPerSec: number | null;
  /** queryMs / bareMs. */
  readonly ratio: number | null;
}

export interface KdbCaseResult {
  readonly id: KdbWarmCaseId;
  readonly variant: string;
  readonly hdb: KdbHdb;
  rows: number | null;
  readonly timings: Record<number, SideTiming>;
  fresh: FreshTiming | null;
  error: string | null;
}

/** Targets: the uncompressed HDB's ratio to native; a compressed HDB's fresh query to its bare decompression; the year to one partition. */
export const KDB_TARGETS = { uncompressed: 1.2, decompression: 1.2, year: 1.5 } as const;

// ---- the value check ------------------------------------------------------------------------------

/** The kdb+ answer without its virtual date column. */
function withoutDate(t: Table): Table {
  return t.names.includes(DATE_COLUMN) ? t.select(t.names.filter((n) => n !== DATE_COLUMN)) : t;
}

/** The strings of a symbol column's rows, decoded once per code. */
function symbolStrings(c: Extract<Column, { type: 'symbol' }>): string[] {
  const byCode = new Map<number, string>();
  return Array.from(c.codes, (k) => {
    let s = byCode.get(k);
    if (s === undefined) byCode.set(k, (s = c.dict.get(k)));
    return s;
  });
}

/** Whether two columns hold the same rows exactly (numbers bit for bit, symbols as strings). */
function sameColumn(a: Column, b: Column): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'symbol' && b.type === 'symbol') {
    const x = symbolStrings(a);
    const y = symbolStrings(b);
    return x.every((s, i) => s === y[i]);
  }
  if ('data' in a && 'data' in b) {
    const x = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength);
    const y = Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength);
    return x.equals(y);
  }
  return false;
}

/**
 * Checks the kdb+ answer holds the native one's columns and rows: exactly (the same rows in the same
 * storage order give the same bytes), else cell by cell within the bench's float tolerance (cells.ts),
 * which names the differing cells. Answers the row count.
 */
function checkSame(id: string, q: KdbQuery, native: Table, kdb: Table): number {
  const k = withoutDate(kdb);
  if (native.names.join() !== k.names.join()) throw new Error(`${id}: native columns ${native.names.join(', ')}; kdb+ columns ${k.names.join(', ')} (date left out)`);
  if (native.length !== k.length) throw new Error(`${id}: native ${native.length} rows, kdb+ ${k.length}`);
  const a = native.columns;
  const b = k.columns;
  if (a.every((c, i) => sameColumn(c, b[i]!))) return native.length;
  checkValues(`${id} (first side native, second kdb+)`, tableCells(native), tableCells(k), q.orderKeys);
  return native.length;
}

// ---- fresh queries and bare decompression ---------------------------------------------------------

/**
 * The HDB's tables as KdbSource reads them, with every partition opened again after `renew()`: no
 * column or file kept from the last query (KdbSource keeps the partitions it read last open). The
 * domains (`sym`...) are read once and kept, as KdbSource keeps them.
 */
class FreshPartitions implements Source {
  readonly kind = 'kdb';
  private readonly domains: Domains;
  private readonly opened = new Map<string, KdbPartition>();

  constructor(
    private readonly kdb: KdbSource,
    private readonly options: KdbReadOptions,
  ) {
    this.domains = new Domains(kdb.dir, options);
  }

  get name(): string {
    return this.kdb.name;
  }

  get schema(): Source['schema'] {
    return this.kdb.schema;
  }

  get config(): Source['config'] {
    return this.kdb.config;
  }

  table(name: string): ReturnType<Source['table']> {
    return this.kdb.table(name);
  }

  partitionKeys(table: string): string[] {
    return this.kdb.partitionKeys(table);
  }

  partition(table: string, key: string): RowSource | undefined {
    if (!this.kdb.partitionKeys(table).includes(key)) return undefined;
    const k = `${table}\0${key}`;
    let p = this.opened.get(k);
    if (!p) {
      const days = Date.parse(`${key}T00:00:00Z`) / 86_400_000;
      p = new KdbPartition({ schema: this.kdb.table(table), dateColumn: DATE_COLUMN }, join(this.kdb.dir, kdbDate(key), table), days, this.domains, this.options);
      this.opened.set(k, p);
    }
    return p;
  }

  reference(): RowSource | undefined {
    return undefined;
  }

  refresh(): void {}

  read<T>(fn: () => T): T {
    return fn();
  }

  checkConfig(check: (c: Source['config'], where: string) => void): void {
    this.kdb.checkConfig(check);
  }

  /** Forgets every partition opened: the next query opens its files again. */
  renew(): void {
    this.opened.clear();
  }
}

/** A block to decompress alone: its stored bytes, read beforehand. */
interface StoredBlock {
  readonly path: string;
  readonly index: number;
  readonly algorithm: number;
  readonly src: Uint8Array;
  readonly expected: number;
}

/** The stored bytes of these blocks (path -> block numbers), each block once; raw blocks (flag 0) counted apart. */
function storedBlocks(blocks: ReadonlyMap<string, ReadonlySet<number>>): { compressed: StoredBlock[]; raw: number; uncompressedBytes: number; storedBytes: number } {
  const compressed: StoredBlock[] = [];
  let raw = 0;
  let uncompressedBytes = 0;
  let storedBytes = 0;
  for (const [path, set] of blocks) {
    const c = openKdbFile(path).compression;
    if (!c) throw new Error(`bench: ${path} decompressed blocks but is not compressed`);
    const starts = [8];
    for (const s of c.storedSizes) starts.push(starts[starts.length - 1]! + s);
    const length = openKdbFile(path).length;
    const fd = openSync(path, 'r');
    try {
      for (const i of [...set].sort((a, b) => a - b)) {
        const expected = Math.min(c.blockSize, length - i * c.blockSize);
        uncompressedBytes += expected;
        storedBytes += c.storedSizes[i]!;
        if (c.blockAlgorithms[i] === 0) {
          raw++;
          continue;
        }
        const src = new Uint8Array(c.storedSizes[i]!);
        readFully(fd, src, starts[i]!, path);
        compressed.push({ path, index: i, algorithm: c.blockAlgorithms[i]!, src, expected });
      }
    } finally {
      closeSync(fd);
    }
  }
  return { compressed, raw, uncompressedBytes, storedBytes };
}

/** Timed runs of a fresh query (and of bare decompression): at most this many, after FRESH_WARMUPS (each run takes seconds on a full day). */
export const FRESH_RUNS = 5;
const FRESH_WARMUPS = 1;

/**
 * The fresh query on an HDB, in this thread, interleaved with bare decompression of the blocks it
 * decompressed (for a compressed HDB); medians of min(runs, FRESH_RUNS) after FRESH_WARMUPS (the
 * first, untimed run besides). The block cache is the reader's default size, emptied before each run.
 */
function freshTiming(k: KdbBenchContext, hdb: KdbHdb, q: KdbQuery): FreshTiming {
  const cache = new BlockCache();
  let decompressions = 0;
  const blocks = new Map<string, Set<number>>();
  const options: KdbReadOptions = {
    cache,
    onDecompress: (path, block) => {
      decompressions++;
      let s = blocks.get(path);
      if (!s) blocks.set(path, (s = new Set()));
      s.add(block);
    },
  };
  const kdb = KdbSource.open(hdb.dir, { read: options });
  const fresh = new FreshPartitions(kdb, options);
  const engine = new Engine([fresh]);
  const query = (): number => {
    fresh.renew();
    cache.clear();
    decompressions = 0;
    k.gc();
    const t0 = performance.now();
    const r = engine.call(q.op, q.args);
    void r.table.columns;
    return performance.now() - t0;
  };
  // a first run (untimed) finds the blocks and loads the domain
  query();
  const perRun = decompressions;
  const stored = hdb.variant.compression ? storedBlocks(blocks) : null;
  const bare = (): number => {
    k.gc();
    const t0 = performance.now();
    for (const b of stored!.compressed) decompressKdbBlock(b.path, b.index, b.algorithm, b.src, b.expected);
    return performance.now() - t0;
  };
  const queryRuns: number[] = [];
  const bareRuns: number[] = [];
  const runs = Math.min(k.runs, FRESH_RUNS);
  for (let i = 0; i < FRESH_WARMUPS + runs; i++) {
    const tq = query();
    if (decompressions !== perRun) throw new Error(`bench: ${hdb.dir}: the fresh query decompressed ${decompressions} blocks, the first run ${perRun}`);
    const tb = stored ? bare() : 0;
    if (i < FRESH_WARMUPS) continue;
    queryRuns.push(tq);
    if (stored) bareRuns.push(tb);
  }
  const queryMs = median(queryRuns);
  const bareMs = stored ? median(bareRuns) : null;
  const distinct = [...blocks.values()].reduce((s, x) => s + x.size, 0);
  return {
    queryMs,
    queryRuns,
    blocks: distinct,
    rawBlocks: stored?.raw ?? 0,
    decompressions: perRun,
    uncompressedBytes: stored?.uncompressedBytes ?? 0,
    storedBytes: stored?.storedBytes ?? 0,
    bareMs,
    bareRuns,
    mbPerSec: stored && bareMs ? stored.compressed.reduce((s, b) => s + b.expected, 0) / 1e6 / (bareMs / 1000) : null,
    ratio: bareMs ? queryMs / bareMs : null,
  };
}

// ---- the warm cases ---------------------------------------------------------------------------------

/** Runs through an executor; the result's columns gathered in this thread (as the bench's warm cases). */
const onExecutor =
  (ex: Executor, id: string, q: KdbQuery) =>
  async (): Promise<Table> => {
    const r = await ex.call(q.op, q.args);
    if (!r.ok) throw new Error(`${id}: ac ${r.header.ac}: ${r.header.ai}`);
    void r.result.table.columns;
    return r.result.table;
  };

/** Interleaved: native, kdb+, native, kdb+, ...; a full GC before each; medians after the warm-ups. */
async function interleaved(k: KdbBenchContext, native: () => Promise<unknown>, kdb: () => Promise<unknown>): Promise<SideTiming> {
  const n: number[] = [];
  const d: number[] = [];
  for (let i = 0; i < k.warmups + k.runs; i++) {
    k.gc();
    let t0 = performance.now();
    await native();
    const tn = performance.now() - t0;
    k.gc();
    t0 = performance.now();
    await kdb();
    const td = performance.now() - t0;
    if (i < k.warmups) continue;
    n.push(tn);
    d.push(td);
  }
  const native_ = median(n);
  const kdb_ = median(d);
  return { native: native_, kdb: kdb_, ratio: kdb_ / native_, nativeRuns: n, kdbRuns: d };
}

const ms = (x: number): string => x.toFixed(2);

/**
 * The warm cases asked for, on every HDB: at each thread count, executors over the native database and
 * the HDB; then each HDB's fresh query (and bare decompression) in this thread.
 */
export async function runKdbWarm(k: KdbBenchContext, nativeDir: string, hdbs: readonly KdbHdb[], ids: readonly KdbWarmCaseId[], queries: Record<KdbWarmCaseId, KdbQuery>): Promise<KdbCaseResult[]> {
  const results: KdbCaseResult[] = [];
  const result = (id: KdbWarmCaseId, hdb: KdbHdb): KdbCaseResult => {
    let r = results.find((x) => x.id === id && x.hdb === hdb);
    if (!r) results.push((r = { id, variant: hdb.variant.id, hdb, rows: null, timings: {}, fresh: null, error: null }));
    return r;
  };
  const fail = (r: KdbCaseResult, e: unknown): void => {
    r.error = `${r.id} (${r.variant}): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n  ${queries[r.id].op} ${JSON.stringify(queries[r.id].args)} on ${r.hdb.dir}`;
    console.error(`\n!!! ${r.id} (${r.variant}) FAILED\n${r.error}\n`);
  };
  const natives = new Map<number, Executor>();
  try {
    for (const t of k.threadCounts) natives.set(t, await k.executor(nativeDir, t));
    for (const hdb of hdbs) {
      for (const t of k.threadCounts) {
        let ex: Executor | undefined;
        try {
          ex = await k.executor(hdb.dir, t);
          for (const id of ids) {
            const r = result(id, hdb);
            if (r.error) continue;
            const q = queries[id];
            try {
              const native = onExecutor(natives.get(t)!, id, q);
              const kdb = onExecutor(ex, id, q);
              // values first (also the first warm-up), at every thread count: the split across workers differs
              r.rows = checkSame(`${id} (${hdb.variant.id}) @${t}t`, q, await native(), await kdb());
              const s = await interleaved(k, native, kdb);
              r.timings[t] = s;
              k.log(`  ${id} ${hdb.variant.id} @${t}t: ${r.rows} rows, values equal; native ${ms(s.native)} ms, kdb+ ${ms(s.kdb)} ms, ratio ${s.ratio.toFixed(2)}`);
            } catch (e) {
              fail(r, e);
            }
          }
        } catch (e) {
          for (const id of ids) fail(result(id, hdb), e);
        } finally {
          await ex?.close();
        }
      }
      for (const id of ids) {
        const r = result(id, hdb);
        if (r.error) continue;
        try {
          const f = freshTiming(k, hdb, queries[id]);
          r.fresh = f;
          const bare = f.bareMs === null ? 'no decompression' : `bare decompression ${ms(f.bareMs)} ms (${f.blocks} blocks, ${(f.mbPerSec ?? 0).toFixed(0)} MB/s), ratio ${(f.ratio ?? 0).toFixed(2)}`;
          k.log(`  ${id} ${hdb.variant.id} fresh (this thread): ${ms(f.queryMs)} ms; ${bare}`);
        } catch (e) {
          fail(r, e);
        }
      }
    }
  } finally {
    for (const ex of natives.values()) await ex.close();
  }
  return results;
}

/** The printed table of the warm cases. */
export function printKdbWarm(results: readonly KdbCaseResult[], threadCounts: readonly number[], runs: number, datasetName: string): void {
  if (results.length === 0) return;
  const col = (s: string, w: number): string => s.padStart(w);
  const mb = (b: number): string => (b / 1e6).toFixed(b < 1e7 ? 2 : 0);
  const names: Record<KdbWarmCaseId, string> = { 'kdb-narrow': '1 instrument, 1 hour', 'kdb-day': 'a full day, all columns', 'kdb-vwap': 'VWAP by instrument, all days' };
  console.log('');
  console.log(`kdb+ vs native: ${datasetName}'s Trade as kdb+ HDBs, ms (median of ${runs}); ratio = kdb+ / native (the same query, the same executor of N workers)`);
  const header = ['case'.padEnd(42), col('rows', 9), ...threadCounts.flatMap((t) => [col(`native@${t}t`, 11), col(`kdb+@${t}t`, 11), col(`ratio@${t}t`, 9)]), col('target', 7)].join(' ');
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const r of results) {
    const cells = threadCounts.flatMap((t) => {
      const x = r.timings[t];
      return x ? [col(ms(x.native), 11), col(ms(x.kdb), 11), col(x.ratio.toFixed(2), 9)] : [col('-', 11), col('-', 11), col('-', 9)];
    });
    const uncompressed = r.hdb.variant.compression === null;
    const target = uncompressed ? `<=${KDB_TARGETS.uncompressed}` : '';
    const missed = uncompressed && threadCounts.some((t) => (r.timings[t]?.ratio ?? 0) > KDB_TARGETS.uncompressed);
    const mark = r.error ? '  FAILED (above)' : missed ? '  MISSED' : '';
    console.log([`${r.id} ${names[r.id]} (${r.variant})`.padEnd(42), col(r.rows === null ? '-' : String(r.rows), 9), ...cells, col(target, 7)].join(' ') + mark);
  }
  console.log('');
  console.log(
    `fresh: in this thread, every partition opened again and the block cache emptied before each run (the domains kept), median of ${Math.min(runs, FRESH_RUNS)}; bare: exactly the blocks that query decompressed (the reader's onDecompress hook), each once, by the reader's decompressor, stored bytes read beforehand. ratio = fresh / bare, target <= ${KDB_TARGETS.decompression}:`,
  );
  for (const r of results) {
    const f = r.fresh;
    if (!f) continue;
    const label = `  ${r.id} (${r.variant})`.padEnd(24);
    if (f.bareMs === null) {
      console.log(`${label} fresh ${col(ms(f.queryMs), 9)} ms   (uncompressed: nothing to decompress; for reference)`);
      continue;
    }
    const again = f.decompressions > f.blocks ? `, ${f.decompressions - f.blocks} decompressed again (evicted from the ${mb(new BlockCache().maxBytes)} MB block cache)` : '';
    const raw = f.rawBlocks > 0 ? `, ${f.rawBlocks} stored raw` : '';
    console.log(
      `${label} fresh ${col(ms(f.queryMs), 9)} ms   bare ${col(ms(f.bareMs), 9)} ms   ratio ${col((f.ratio ?? 0).toFixed(2), 5)}   ${f.blocks} blocks${raw}${again}: ${mb(f.storedBytes)} MB stored -> ${mb(f.uncompressedBytes)} MB (${(f.uncompressedBytes / f.storedBytes).toFixed(2)}:1), ${(f.mbPerSec ?? 0).toFixed(0)} MB/s${(f.ratio ?? 0) > KDB_TARGETS.decompression ? '  MISSED' : ''}`,
    );
    // what compression adds to the fresh query, against decompressing alone (informational)
    const plain = results.find((x) => x.id === r.id && x.hdb.variant.compression === null)?.fresh;
    if (plain) console.log(`${''.padEnd(24)} beyond the uncompressed HDB's fresh query: ${ms(f.queryMs - plain.queryMs)} ms = ${((f.queryMs - plain.queryMs) / f.bareMs).toFixed(2)}x bare decompression`);
  }
  const seen = new Set<string>();
  const sizes = results.filter((r) => !seen.has(r.variant) && seen.add(r.variant)).map((r) => r.hdb);
  const plain = sizes.find((h) => h.variant.compression === null);
  console.log(
    `  HDBs: ${sizes.map((h) => `${h.variant.id} ${mb(h.bytes)} MB${plain && h !== plain ? ` (${(plain.bytes / h.bytes).toFixed(2)}:1)` : ''}`).join(', ')}; ${sizes
      .filter((h) => h.variant.compression)
      .map((h) => `${h.variant.id}: ${h.variant.label}`)
      .join('; ')}`,
  );
}
