/** Import…'s form as data: the mapping JSON it makes (read back by the CLI's reader), the command line, new tables. */
import { describe, expect, it } from 'vitest';
import { importMapFromJson } from '../../engine/storage/import-map.js';
import { cliLine, type ColumnForm, columnDoc, columnName, EMPTY_COLUMN, mapDoc, newTableSpec, shellQuote, sizeText, splitPaths } from '../../renderer/src/form/import-form.js';
import { leanMap } from '../helpers/lean.js';

const col = (patch: Partial<ColumnForm>): ColumnForm => ({ ...EMPTY_COLUMN, ...patch });

describe('Import… form', () => {
  it('makes the Lean mapping of docs/import.md, which the CLI reads', () => {
    const doc = mapDoc(
      {
        table: 'Trade',
        header: false,
        zone: 'America/New_York',
        columns: {
          eventTimestamp: col({ from: 'source', source: '0', unit: 'ms', since: 'midnight' }),
          instrumentID: col({ from: 'path', case: 'upper' }),
          price: col({ from: 'source', source: '1', scale: '0.0001' }),
          volume: col({ from: 'source', source: '2' }),
          conditions: col({ from: 'none', source: '3' }),
        },
      },
      ['eventTimestamp', 'instrumentID', 'exchTime', 'price', 'volume', 'conditions'],
    );
    expect(doc).toEqual(leanMap());
    const map = importMapFromJson(doc, 'the mapping');
    expect([...map.columns.keys()]).toEqual(['eventTimestamp', 'instrumentID', 'price', 'volume']);
  });

  it('names source columns by name with a header; leaves out rows not filled in; keeps a bad scale for the engine to name', () => {
    expect(columnDoc(col({ from: 'source', source: 'px' }), true)).toEqual({ source: 'px' });
    expect(columnDoc(col({ from: 'source', source: '' }), true)).toBeUndefined();
    expect(columnDoc(col({ from: 'constant', constant: 'XNAS' }), true)).toEqual({ constant: 'XNAS' });
    expect(columnDoc(col({ from: 'source', source: 'ts', unit: 's' }), true)).toEqual({ source: 'ts', unit: 's', since: 'epoch' });
    expect(columnDoc(col({ from: 'source', source: 't', unit: 'ms', since: 'midnight', dateFrom: 'source', dateSource: 'day' }), true)).toEqual({ source: 't', unit: 'ms', since: 'midnight', date: { source: 'day' } });
    expect(columnDoc(col({ from: 'source', source: 'p', scale: 'x' }), true)).toEqual({ source: 'p', scale: 'x' });
  });

  it('writes the command line, quoting paths for a shell', () => {
    expect(cliLine('/data/db', ['/data/lean/aapl', "/data/my files/it's"])).toBe("npx tickscope import --db /data/db --map mapping.json /data/lean/aapl '/data/my files/it'\\''s'");
    expect(cliLine('', [])).toBe('npx tickscope import --db DB --map mapping.json PATHS');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(splitPaths(' /a \n\n/b\r\n')).toEqual(['/a', '/b']);
  });

  it('makes a new table from source columns: names from a header or positions, its time and identifier columns', () => {
    expect([columnName('0', false), columnName('bid price', true), columnName('1st', true)]).toEqual(['c0', 'bid_price', 'c_1st']);
    expect(newTableSpec('T', [{ name: 'c0', type: 'long' }, { name: 't', type: 'timestamp' }, { name: 's', type: 'symbol' }])).toEqual({
      name: 'T',
      columns: [{ name: 'c0', type: 'long' }, { name: 't', type: 'timestamp' }, { name: 's', type: 'symbol' }],
      timeColumn: 't',
      idColumn: 's',
    });
    expect([sizeText(512), sizeText(1536), sizeText(25 * 1024 * 1024)]).toEqual(['512 B', '1.5 kB', '25 MB']);
  });
});
