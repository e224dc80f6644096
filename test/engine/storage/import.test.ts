import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Field, Float64, Int64, List, makeData, makeVector, Table as ArrowTable, tableToIPC, TimestampNanosecond, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../engine/engine.js';
import { payloadJson } from '../../../engine/output/envelope.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile } from '../../../engine/storage/import.js';
import { csv, payloadRows, tempDir } from '../../helpers/db.js';

function newDb(): Database {
  return Database.create(join(tempDir(), 'db'));
}

function writeTemp(name: string, content: string | Uint8Array): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}

describe('CSV import', () => {
  it('reads every timestamp form, nulls as empty, and appends in time order', () => {
    const db = newDb();
    const file = writeTemp(
      'q.csv',
      csv(['eventTimestamp', 'instrumentID', 'bidPrice', 'bidSize', 'askPrice', 'askSize', 'exchTime'], [
        ['2024.03.06D14:30:00.000000002', 'AAPL', '189.5', '300', '189.52', '', ''],
        ['2024-03-06T09:30:00.000000001-05:00', 'AAPL', '', '100', '189.6', '200', '2024.03.06D14:29:59.999'],
        ['2024.03.06', 'MSFT', '401', '5', '401.02', '7', ''],
      ]),
    );
    expect(importFile(db, 'Quote', file)).toEqual({ written: true, rows: 3, partitions: ['2024-03-06'], reimported: [], skippedRows: 0 });
    const rows = payloadRows(new Engine([db]), 'getTicks', { table: 'Quote', columns: ['instrumentID', 'bidPrice', 'askSize', 'exchTime'] });
    expect(rows).toEqual([
      { eventTimestamp: '2024-03-06T00:00:00.000000000', instrumentID: 'MSFT', bidPrice: 401, askSize: 7, exchTime: null },
      { eventTimestamp: '2024-03-06T14:30:00.000000001', instrumentID: 'AAPL', bidPrice: null, askSize: 200, exchTime: '2024-03-06T14:29:59.999000000' },
      { eventTimestamp: '2024-03-06T14:30:00.000000002', instrumentID: 'AAPL', bidPrice: 189.5, askSize: null, exchTime: null },
    ]);
    // A second import appends to the same partition.
    importFile(db, 'Quote', writeTemp('q2.csv', csv(['eventTimestamp', 'instrumentID'], [['2024.03.06D14:30:00.000000001', 'AAPL']])));
    expect(db.rowCount('Quote')).toBe(4);
  });

  it('imports longs over the whole int64 range exactly, and refuses one beyond it', () => {
    const db = newDb();
    const rows = [['2024.03.06D10:00', 'AAPL', '9223372036854775807'], ['2024.03.06D10:01', 'AAPL', '-9223372036854775807'], ['2024.03.06D10:02', 'AAPL', '9007199254740993']];
    importFile(db, 'Trade', writeTemp('big.csv', csv(['eventTimestamp', 'instrumentID', 'sequenceNumber'], rows)));
    const text = payloadJson(new Engine([db]).call('getTicks', { table: 'Trade', columns: ['sequenceNumber'] }));
    expect(text).toContain('"sequenceNumber":9223372036854775807');
    expect(text).toContain('"sequenceNumber":-9223372036854775807');
    expect(text).toContain('"sequenceNumber":9007199254740993');
    const over = writeTemp('over.csv', csv(['eventTimestamp', 'instrumentID', 'sequenceNumber'], [['2024.03.06D10:03', 'AAPL', '9223372036854775808']]));
    expect(() => importFile(db, 'Trade', over)).toThrow(/over.csv: line 2, column sequenceNumber: 9223372036854775808 is outside the long range/);
  });

  it('reads timestamps without a zone in --tz', () => {
    const db = newDb();
    importFile(db, 'Trade', writeTemp('t.csv', csv(['eventTimestamp', 'instrumentID', 'price'], [['2024-07-01T09:30:00', 'AAPL', '1']])), { tz: 'America/New_York' });
    const [row] = payloadRows(new Engine([db]), 'getTicks', { table: 'Trade', columns: ['price'] });
    expect(row!['eventTimestamp']).toBe('2024-07-01T13:30:00.000000000');
  });

  it('reports the first bad value with its line and column, and writes nothing', () => {
    const db = newDb();
    importFile(db, 'Trade', writeTemp('ok.csv', csv(['eventTimestamp', 'instrumentID', 'price'], [['2024.03.06D10:00', 'AAPL', '1']])));
    const manifest = readFileSync(join(db.dir, 'manifest.json'), 'utf8');
    const bad = writeTemp('bad.csv', csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [
      ['2024.03.06D10:01', 'AAPL', '2', '10'],
      ['2024.03.07D10:01', 'AAPL', '3', 'ten'],
    ]));
    expect(() => importFile(db, 'Trade', bad)).toThrow(/bad.csv: line 3, column volume: "ten" is not a long; expected an integer/);
    expect(readFileSync(join(db.dir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(db.rowCount('Trade')).toBe(1);
  });

  it('rejects unknown columns, a missing time column and bad list cells', () => {
    const db = newDb();
    expect(() => importFile(db, 'Trade', writeTemp('a.csv', 'eventTimestamp,instrumentID,prize\n2024.03.06,A,1\n'))).toThrow(
      /line 1, column 3: "prize" is not a column of Trade/,
    );
    expect(() => importFile(db, 'Trade', writeTemp('b.csv', 'instrumentID,price\nA,1\n'))).toThrow(/lacks eventTimestamp/);
    expect(() =>
      importFile(db, 'OrderbookSnapshots', writeTemp('c.csv', 'eventTimestamp,instrumentID,bidPrice\n2024.03.06,A,1 2\n')),
    ).toThrow(/line 2, column bidPrice: "1 2" is not a float\[\] list; expected a JSON array/);
    expect(() => importFile(db, 'Trade', writeTemp('d.txt', 'x'))).toThrow(/unknown file type ".txt"/);
    expect(() => importFile(db, 'Nope', writeTemp('e.csv', 'x\n'))).toThrow(/table: "Nope" is not a table/);
  });

  it('stores list columns from JSON arrays', () => {
    const db = newDb();
    importFile(db, 'OrderbookSnapshots', writeTemp('s.csv', 'eventTimestamp,instrumentID,bidPrice,bidSize\n2024.03.06D10:00,A,"[10.5,10.4]","[100,200]"\n'));
    const [row] = payloadRows(new Engine([db]), 'getTicks', { table: 'OrderbookSnapshots', columns: ['bidPrice', 'bidSize', 'askPrice'] });
    expect(row).toEqual({ eventTimestamp: '2024-03-06T10:00:00.000000000', bidPrice: [10.5, 10.4], bidSize: [100, 200], askPrice: [] });
  });
});

describe('Arrow IPC import', () => {
  it('reads timestamps, strings, floats, int64 and lists by column name', () => {
    const db = newDb();
    const ns = BigInt64Array.of(1709735400000000001n, 1709735400000000000n);
    const table = new ArrowTable({
      eventTimestamp: makeVector(makeData({ type: new TimestampNanosecond(), length: 2, data: ns })),
      instrumentID: vectorFromArray(['MSFT', 'AAPL'], new Utf8()),
      bidPrice: vectorFromArray([[401.5, 401.4], []], new List(new Field('item', new Float64(), true))),
      totalBidSize: vectorFromArray([100n, null], new Int64()),
    });
    const file = writeTemp('s.arrow', tableToIPC(table, 'file'));
    expect(importFile(db, 'OrderbookSnapshots', file).rows).toBe(2);
    const rows = payloadRows(new Engine([db]), 'getTicks', { table: 'OrderbookSnapshots', columns: ['instrumentID', 'bidPrice', 'totalBidSize'] });
    expect(rows).toEqual([
      { eventTimestamp: '2024-03-06T14:30:00.000000000', instrumentID: 'AAPL', bidPrice: [], totalBidSize: null },
      { eventTimestamp: '2024-03-06T14:30:00.000000001', instrumentID: 'MSFT', bidPrice: [401.5, 401.4], totalBidSize: 100 },
    ]);
  });

  it('rejects a file that is not Arrow, and a column not in the table', () => {
    const db = newDb();
    expect(() => importFile(db, 'Trade', writeTemp('x.arrow', 'not arrow'))).toThrow(/not an Arrow IPC file/);
    const t = new ArrowTable({ bogus: vectorFromArray([1], new Float64()) });
    expect(() => importFile(db, 'Trade', writeTemp('y.arrow', tableToIPC(t, 'stream')))).toThrow(/column bogus is not a column of Trade/);
  });
});
