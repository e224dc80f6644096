/** Values a connection does not know, kept in the form and marked with the reason; zone offsets over a form's window. */
import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../engine/contract.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { unknownValues } from '../../renderer/src/form/form-check.js';
import { listValue } from '../../renderer/src/form/values.js';
import { windowOffsets } from '../../renderer/src/form/zones.js';

const op = (name: string) => OPERATIONS.find((o) => o.name === name)!;
const col = (name: string, type: TableInfo['columns'][number]['type']): TableInfo['columns'][number] => ({ name, type });
const TABLES: TableInfo[] = [
  {
    name: 'Trade', kind: 'partitioned', timeColumn: 'eventTimestamp', idColumn: 'instrumentID', key: null, rows: 10, firstDate: '2024-03-06', lastDate: '2024-03-06',
    columns: [col('eventTimestamp', 'timestamp'), col('instrumentID', 'symbol'), col('price', 'float'), col('volume', 'long')],
    foreignKeys: { instrumentID: 'Instrument' },
    analytics: ['firstPrice', 'vwap'],
  },
  {
    name: 'Instrument', kind: 'reference', timeColumn: null, idColumn: 'instrumentID', key: 'instrumentID', rows: 2, firstDate: null, lastDate: null,
    columns: [col('instrumentID', 'symbol'), col('sector', 'symbol')], foreignKeys: {}, analytics: [],
  },
];

describe('values a connection does not know', () => {
  it('marks a table it does not have, listing the ones it has', () => {
    expect(unknownValues(op('getTicks'), { table: 'trades' }, TABLES, 'remote-1')).toEqual({ table: 'trades is not a table of remote-1; it has Trade, Instrument' });
  });

  it('marks columns and analytics the table lacks, accepting columns of the reference tables it reaches', () => {
    const marks = unknownValues(op('getStats'), { table: 'Trade', analytics: listValue(['vwap', 'twap']), groupBy: listValue(['instrumentID', 'sector', 'venue']) }, TABLES, 'gw');
    expect(marks).toEqual({ analytics: 'twap is not an analytic of Trade on gw', groupBy: 'venue is not a column of Trade on gw' });
    expect(unknownValues(op('getTicks'), { table: 'Trade', columns: 'price size bid', idCol: 'instrumentID' }, TABLES, 'gw')).toEqual({ columns: 'size, bid are not columns of Trade on gw' });
  });

  it('marks nothing for known values, empty fields, or before the connection has said what it holds', () => {
    expect(unknownValues(op('getTicks'), { table: 'Trade', columns: listValue(['price']), idCol: '' }, TABLES, 'gw')).toEqual({});
    expect(unknownValues(op('getTicks'), { table: 'Nope' }, [], 'gw')).toEqual({});
  });
});

describe('a zone offset over the window', () => {
  it("is the offset on the window's dates, not today's", () => {
    expect(windowOffsets('America/New_York', '2013.10.08D09:30', '2013.10.09', 'UTC')).toEqual({ label: 'UTC-04:00', dated: true });
    expect(windowOffsets('America/New_York', '2024.01.08', '2024.01.09', 'UTC')).toEqual({ label: 'UTC-05:00', dated: true });
  });

  it('gives both offsets when the window crosses a change, the end being exclusive', () => {
    expect(windowOffsets('America/New_York', '2024.03.09', '2024.03.12', 'UTC')).toEqual({ label: 'UTC-05:00 → -04:00', dated: true });
    // London changes at 01:00 UTC on 2024-03-31: a window ending exactly then has one offset
    expect(windowOffsets('Europe/London', '2024.03.31D00:00', '2024.03.31D01:00', 'UTC').label).toBe('UTC+00:00');
    expect(windowOffsets('Europe/London', '2024.03.31D00:00', '2024.03.31D01:00:00.002', 'UTC').label).toBe('UTC+00:00 → +01:00');
    // local texts are read in the input zone: 20:00 and 21:30 in New York (UTC-04:00) are 00:00 and 01:30 UTC, either side of London's change
    expect(windowOffsets('Europe/London', '2024.03.30D20:00', '2024.03.30D21:30', 'America/New_York').label).toBe('UTC+00:00 → +01:00');
  });

  it("is today's offset, said so, when the window gives no date", () => {
    expect(windowOffsets('UTC', '', '0Wp', 'UTC')).toEqual({ label: 'UTC+00:00', dated: false });
  });
});
