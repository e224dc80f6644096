/** Import…'s preview helpers on their own: CSV records cut from a file's head, types guessed from text, Parquet and Arrow columns as text. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { textCells } from '../../../engine/output/text-cells.js';
import { csvRecords, inferColumns, previewImport } from '../../../engine/storage/import-preview.js';
import { tempDir } from '../../helpers/db.js';

const text = (c: Parameters<typeof textCells>[0], zone: string): ((i: number) => string) => textCells(c, zone, '', true);

describe('import preview helpers', () => {
  it('splits CSV records: quotes, doubled quotes, CRLF, a record cut by the end of what was read left out', () => {
    const bytes = Buffer.from('a,"b,c","say ""hi"""\r\n1,2,3\r\n4,5');
    expect(csvRecords(bytes, 10)).toEqual([
      ['a', 'b,c', 'say "hi"'],
      ['1', '2', '3'],
      ['4', '5'],
    ]);
    expect(csvRecords(bytes, 1)).toEqual([['a', 'b,c', 'say "hi"']]);
  });

  it('guesses a type per column from its text, empty cells saying nothing', () => {
    const rows = [
      ['1', '1.5', '2013-10-08', '2013-10-08T09:30:00.5-04:00', 'true', 'NASDAQ', ''],
      ['-2', '3', '2013.10.09', '2013.10.08D09:30:00', 'FALSE', 'NYSE', ''],
    ];
    expect(inferColumns({ columns: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], rows })).toEqual(['long', 'float', 'date', 'timestamp', 'boolean', 'symbol', 'symbol']);
  });

  it('reads a header\'s names, and a CSV with more rows than shown', () => {
    const dir = tempDir();
    const file = join(dir, 'quotes.csv');
    writeFileSync(file, `time,bid\n${Array.from({ length: 50 }, (_, i) => `2024-03-06T14:30:${String(i).padStart(2, '0')},${100 + i}`).join('\n')}\n`);
    const p = previewImport([dir], { text, rows: 3 });
    expect([p.sourceColumns, p.sourceRows, p.sourceTypes]).toEqual([['time', 'bid'], [['2024-03-06T14:30:00', '100'], ['2024-03-06T14:30:01', '101'], ['2024-03-06T14:30:02', '102']], ['timestamp', 'long']]);
  });

  it('shows a Parquet and an Arrow file\'s columns by name, values as text', async () => {
    const dir = tempDir();
    const pq = join(dir, 'trades.parquet');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    await duck.run(`COPY (SELECT TIMESTAMPTZ '2013-10-08 13:30:00+00' + INTERVAL (i) SECOND AS ts, 'AAPL' AS sym, 486.99 + i / 100 AS px, (i + 1) * 100 AS qty FROM range(3) t(i)) TO '${pq}' (FORMAT PARQUET)`);
    const p = previewImport([pq], { text });
    expect(p.files.map((f) => f.format)).toEqual(['parquet']);
    expect(p.sourceColumns).toEqual(['ts', 'sym', 'px', 'qty']);
    expect(p.sourceRows[0]).toEqual(['2013-10-08T13:30:00.000000000', 'AAPL', '486.99', '100']);
    expect(p.sourceTypes).toEqual(['timestamp', 'symbol', 'float', 'long']);
    const arrow = join(dir, 'trades.arrow');
    writeFileSync(arrow, tableToIPC(tableFromArrays({ sym: ['MSFT', 'IBM'], px: Float64Array.from([33.55, 185.1]) }), 'file'));
    const a = previewImport([arrow], { text });
    expect([a.sourceColumns, a.sourceRows]).toEqual([['sym', 'px'], [['MSFT', '33.55'], ['IBM', '185.1']]]);
  });
});
