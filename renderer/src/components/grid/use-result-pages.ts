/**
 * A held result's rows for the grid, read from the backend a page at a time as they come into view
 * (cells as the CSV writes them), and what the rows read so far say about each column: the numbers'
 * stats that decide its format, and its longest text. On a new result a sample of pages spread over
 * it is read at once, so the formats are inferred from the whole result's range from the start.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunResponse } from '../../../../engine/contract';
import { backend } from '../../backend';
import { type ColumnStats, isNumericType, statsOfCells } from '../../grid/number-format';

type RunOk = Extract<RunResponse, { ok: true }>;

/** Rows per page request while scrolling. */
export const PAGE = 200;
/** Results up to this many rows are read whole at once (small getStats results, drill-downs). */
const EAGER_ROWS = 5000;
/** Pages read on a new result: the first, the last and evenly between. */
const SAMPLE_PAGES = 8;
/** The most rows one page request may ask for (the backend's limit). */
const READ_LIMIT = 10_000;

export interface ResultPages {
  /** Changes whenever a page arrives. */
  readonly version: number;
  /** The first pages (the sample) have been read: formats inferred from them hold for the result. */
  readonly ready: boolean;
  /** A cell's text, or undefined while its page is being read. */
  cell(row: number, col: number): string | undefined;
  /** Stats of each numeric column (by result column index) over the rows read so far. */
  readonly stats: ReadonlyArray<ColumnStats | undefined>;
  /** The longest text of each column over the rows read so far. */
  readonly longest: readonly number[];
  /** Reads the pages holding rows first..last, unless read or being read. */
  ensure(first: number, last: number): void;
  /** Rows lo..hi (inclusive) as text, from the pages read and the backend for the rest. */
  rows(lo: number, hi: number): Promise<ReadonlyArray<readonly string[]>>;
}

/** Page indexes of the sample read on a new result. */
export function samplePages(rows: number): number[] {
  const pages = Math.ceil(rows / PAGE);
  if (pages <= SAMPLE_PAGES) return Array.from({ length: pages }, (_, i) => i);
  return [...new Set(Array.from({ length: SAMPLE_PAGES }, (_, k) => Math.round((k * (pages - 1)) / (SAMPLE_PAGES - 1))))];
}

/** What the rows read of another result said of the same columns (a sorted copy starts from its result's). */
export interface PagesSeed {
  readonly stats: ReadonlyArray<ColumnStats | undefined>;
  readonly longest: readonly number[];
}

/**
 * The pages of `result`. `seed`, asked when a new result arrives, gives stats to start from: a sorted
 * copy of a result keeps the formats and widths its rows gave, rather than jumping with another sample.
 */
export function useResultPages(result: RunOk | null, seed?: () => PagesSeed | null): ResultPages {
  const seedOf = useRef(seed);
  seedOf.current = seed;
  const current = useRef<string | null>(null);
  current.current = result?.resultId ?? null;
  const pages = useRef(new Map<number, ReadonlyArray<readonly string[]>>());
  const pending = useRef(new Set<number>());
  /** Pages of the first read still outstanding. */
  const first = useRef(new Set<number>());
  const stats = useRef<Array<ColumnStats | undefined>>([]);
  const longest = useRef<number[]>([]);
  const [version, setVersion] = useState(0);

  const learn = useCallback(
    (rows: ReadonlyArray<readonly string[]>) => {
      if (!result) return;
      result.columns.forEach((c, j) => {
        if (isNumericType(c.type)) stats.current[j] = statsOfCells(rows.map((r) => r[j]), stats.current[j]);
        let most = longest.current[j] ?? 0;
        for (const r of rows) most = Math.max(most, r[j]?.length ?? 0);
        longest.current[j] = most;
      });
    },
    [result],
  );

  const fetchPage = useCallback(
    (p: number) => {
      if (!result || pages.current.has(p) || pending.current.has(p)) return;
      pending.current.add(p);
      const id = result.resultId;
      backend()
        .page(id, p * PAGE, PAGE)
        .then((page) => {
          if (id !== current.current) return;
          pages.current.set(p, page.rows);
          learn(page.rows);
          setVersion((v) => v + 1);
        })
        .catch(() => undefined)
        .finally(() => {
          pending.current.delete(p);
          if (id === current.current && first.current.delete(p) && first.current.size === 0) setVersion((v) => v + 1);
        });
    },
    [result, learn],
  );

  useEffect(() => {
    pages.current = new Map();
    pending.current = new Set();
    const from = result ? seedOf.current?.() : null;
    stats.current = from ? [...from.stats] : [];
    longest.current = from ? [...from.longest] : [];
    first.current = new Set();
    setVersion((v) => v + 1);
    if (!result || result.rows === 0) return;
    // Small results (getStats buckets) are read whole at once: the backend keeps only its latest few
    // results, and the stats view's ladder lookups run queries of their own.
    first.current = new Set(result.rows <= EAGER_ROWS ? Array.from({ length: Math.ceil(result.rows / PAGE) }, (_, p) => p) : samplePages(result.rows));
    for (const p of first.current) fetchPage(p);
  }, [result, fetchPage]);

  const ensure = useCallback(
    (first: number, last: number) => {
      for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) fetchPage(p);
    },
    [fetchPage],
  );

  const cell = useCallback((row: number, col: number) => pages.current.get(Math.floor(row / PAGE))?.[row % PAGE]?.[col], []);

  const rows = useCallback(
    async (lo: number, hi: number) => {
      if (!result) return [];
      const out: Array<readonly string[]> = [];
      let row = lo;
      while (row <= hi) {
        const held = pages.current.get(Math.floor(row / PAGE))?.[row % PAGE];
        if (held) {
          out.push(held);
          row++;
          continue;
        }
        const count = Math.min(READ_LIMIT, hi - row + 1);
        const page = await backend().page(result.resultId, row, count);
        if (page.rows.length === 0) break;
        out.push(...page.rows);
        row += page.rows.length;
      }
      return out;
    },
    [result],
  );

  return { version, ready: first.current.size === 0, cell, stats: stats.current, longest: longest.current, ensure, rows };
}
