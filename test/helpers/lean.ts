/**
 * Files in QuantConnect Lean's AlgoSeek equity trade layout, built for tests (the mapped import, its
 * re-imports): one CSV per symbol per day, no header, milliseconds since midnight New York time,
 * prices × 10,000, the symbol in the folder name, the date in the file name; and the mapping that
 * reads them (docs/import.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** [symbol folder, day, ms since midnight, price × 10,000, size]. */
export type LeanTrade = [string, string, number, number, number];

/** AAPL and MSFT over two days. */
export const LEAN_TRADES: readonly LeanTrade[] = [
  ['aapl', '20131008', 34_200_000, 4_869_900, 100],
  ['aapl', '20131008', 34_200_457, 4_870_000, 300],
  ['aapl', '20131008', 57_599_999, 4_801_200, 50],
  ['aapl', '20131009', 34_260_000, 4_861_000, 10],
  ['msft', '20131008', 36_000_000, 335_500, 200],
  ['msft', '20131009', 36_000_001, 336_000, 20],
];

/** Lean's layout: <root>/equity/usa/tick/<sym>/<yyyymmdd>_<sym>_trade_tick.csv, rows `ms,price×10000,size,exchange`. */
export function leanFiles(root: string, data: readonly LeanTrade[] = LEAN_TRADES): { files: number; rows: Array<[string, string, number, number, string]> } {
  const byFile = new Map<string, string[]>();
  for (const [sym, day, ms, px, size] of data) {
    const file = join(root, 'equity', 'usa', 'tick', sym, `${day}_${sym}_trade_tick.csv`);
    byFile.set(file, [...(byFile.get(file) ?? []), `${ms},${px},${size},NASDAQ`]);
  }
  for (const [file, lines] of byFile) {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${lines.join('\r\n')}\r\n`);
  }
  // the instants: New York is UTC-4 in October 2013 (EDT)
  const rows = data.map(([sym, day, ms, px, size]): [string, string, number, number, string] => {
    const utcMs = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6))) + ms + 4 * 3_600_000;
    return [new Date(utcMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000000'), sym.toUpperCase(), px / 10_000, size, 'NASDAQ'];
  });
  return { files: byFile.size, rows };
}

/**
 * The mapping of Lean's trade CSVs (docs/import.md): the time (ms since midnight of the file name's
 * date, New York), the symbol (its folder, upper-cased), the price (× 10,000) and the size, plus
 * `extra` table columns.
 */
export function leanMap(extra: Record<string, unknown> = {}): { table: string; header: boolean; zone: string; columns: Record<string, Record<string, unknown>> } {
  return {
    table: 'Trade',
    header: false,
    zone: 'America/New_York',
    columns: {
      eventTimestamp: { source: 0, unit: 'ms', since: 'midnight', date: { path: '{name}', pattern: '^(\\d{8})' } },
      instrumentID: { path: '{dir}', case: 'upper' },
      price: { source: 1, scale: 0.0001 },
      volume: { source: 2 },
      ...(extra as Record<string, Record<string, unknown>>),
    },
  };
}

/** leanMap with the exchange from the fourth field. */
export const LEAN_MAP = leanMap({ tradedExchange: { source: 3 } });

