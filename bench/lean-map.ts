/**
 * The mapping of QuantConnect Lean's trade CSVs (docs/import.md's example), for the bench's import
 * cases and the fuzz harness: the time (ms since midnight of the file name's date, New York), the
 * symbol (its folder, upper-cased), the price (× 10,000) and the size, plus `extra` table columns.
 */
export function leanMap(extra: Record<string, unknown> = {}): { table: string; header: boolean; zone: string; columns: Record<string, unknown> } {
  return {
    table: 'Trade',
    header: false,
    zone: 'America/New_York',
    columns: {
      eventTimestamp: { source: 0, unit: 'ms', since: 'midnight', date: { path: '{name}', pattern: '^(\\d{8})' } },
      instrumentID: { path: '{dir}', case: 'upper' },
      price: { source: 1, scale: 0.0001 },
      volume: { source: 2 },
      ...extra,
    },
  };
}
