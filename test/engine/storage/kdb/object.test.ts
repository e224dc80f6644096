/**
 * Serialized q objects in kdb+ files (engine/storage/kdb/object.ts, domain.ts): the fixtures' `.d`
 * and `sym` files (names to the file's end, whatever the header count), tables written whole (q's own
 * serializations from qPython's vectors, as `set` writes them: `ff 01` then the object), and damaged
 * copies refused naming the file.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { columnLength, symbolText } from '../../../../engine/core/column.js';
import { Domains } from '../../../../engine/storage/kdb/domain.js';
import { readColumnNames, readObject } from '../../../../engine/storage/kdb/object.js';
import { readColumn } from '../../../../engine/storage/kdb/column.js';
import { ADV, copyFixture, damage, expectError, qBytes, scratch, setFile, TORQ, TORQ_DAY } from './kdb-helpers.js';

const tmp: Array<() => void> = [];
afterEach(() => {
  for (const done of tmp.splice(0)) done();
});
function dir(): string {
  const s = scratch();
  tmp.push(s.done);
  return s.dir;
}




describe('.d and domain files', () => {
  it("reads the tables' column orders", () => {
    expect(readColumnNames(join(TORQ_DAY, 'trade/.d'))).toEqual(['time', 'sym', 'price', 'size', 'stop', 'cond', 'ex']);
    expect(readColumnNames(join(TORQ_DAY, 'trade_iex/.d'))).toEqual(['sym', 'time', 'price', 'size', 'stop', 'cond', 'ex', 'srctime']);
    expect(readColumnNames(join(ADV, '2019.06.24/quote/.d'))).toEqual(['sym', 'time', 'bid', 'ask', 'askSize', 'bidSize', 'exchange']);
  });

  it('reads sym to its end: TorQ 10 names (count 10), advancedKdb 12 names (count 0)', () => {
    expect(readObject(join(TORQ, 'sym'))).toEqual({ kind: 'symbols', names: ['MSFT', 'DOW', 'AAPL', 'IBM', 'INTC', 'GOOG', 'AMD', 'AIG', 'HPQ', 'DELL'], headerCount: 10 });
    expect(readObject(join(ADV, 'sym'))).toEqual({ kind: 'symbols', names: ['GOOG', 'MSFT', 'ASX', 'IBM', 'FDL', 'AAPL', 'CSA', 'SYD', 'NYC', 'CHI', 'LDN', 'HK'], headerCount: 0 });
  });

  it("decodes a domain's names only as they are asked for, one dictionary per domain", () => {
    const domains = new Domains(ADV);
    const d = domains.get('sym');
    expect(domains.get('sym')).toBe(d);
    expect(d.dict.length).toBe(13); // 12 names and the null symbol
    expect(d.dict.get(5)).toBe('AAPL');
    expect(d.dict.get(d.nullCode)).toBe('');
  });

  it('reads a null enumeration index as the null symbol', () => {
    const [sym, col] = copyFixture(ADV, dir(), 'sym', '2019.06.24/bid/time');
    // a 64-bit enumeration of 3 rows: AAPL, null, HK
    const page = Buffer.alloc(4096 + 24);
    page.set([0xfd, 0x20]);
    page.write('sym', 16, 'latin1');
    page.set([0xfd, 0x00, 20, 0], 4080);
    page.writeBigInt64LE(5n, 4096);
    page.writeBigInt64LE(-(2n ** 63n), 4104);
    page.writeBigInt64LE(11n, 4112);
    writeFileSync(col!, page);
    const c = readColumn(col!, { domain: new Domains(join(sym!, '..')) });
    if (c.type !== 'symbol') throw new Error('expected symbols');
    expect([0, 1, 2].map((i) => symbolText(c, i))).toEqual(['AAPL', '', 'HK']);
  });

  it('refuses a domain whose last name is cut, or which is missing, naming it', () => {
    const d = dir();
    const [sym] = copyFixture(ADV, d, 'sym', '2019.06.24/quote/sym');
    damage(sym!, (b) => b.subarray(0, b.length - 1));
    expectError(() => readColumn(join(d, '2019.06.24/quote/sym'), { domain: new Domains(d) }), 'badDatabase', sym!, /no terminating 0/);
    expectError(() => readColumn(join(ADV, '2019.06.24/quote/sym'), { domain: new Domains(join(d, 'nowhere')) }), 'badDatabase', join(d, 'nowhere', 'sym'), /no such file/);
  });
});

describe('tables written whole', () => {
  it("reads a table q serialized, as `set` writes it (ff 01 + q's bytes)", () => {
    const path = join(dir(), 't');
    writeFileSync(path, setFile(qBytes('([] pos:`d1`d2`d3;dates:(2001.01.01;2000.05.01;0Nd))')));
    const o = readObject(path);
    if (o.kind !== 'table') throw new Error('expected a table');
    expect(o.table.names).toEqual(['pos', 'dates']);
    expect(o.table.length).toBe(3);
    expect(o.qTypes).toEqual([11, 14]);
    const dates = o.table.col('dates');
    expect(dates.type).toBe('date');
    expect(Array.from((dates as { data: Int32Array }).data)).toEqual([11323, 11078, -2147483648]);
  });

  it('reads a keyed table (its key columns first) and a list column', () => {
    const d = dir();
    writeFileSync(join(d, 'k'), setFile(qBytes('([eid:1001 1002 1003] pos:`d1`d2`d3;dates:(2001.01.01;2000.05.01;0Nd))')));
    const k = readObject(join(d, 'k'));
    expect(k.kind === 'table' && [k.keyColumns, k.table.names]).toEqual([1, ['eid', 'pos', 'dates']]);
    writeFileSync(join(d, 'l'), setFile(qBytes('([] sc:1 2 3; nsc:(1 2; 3 4; 5 6 7))')));
    const l = readObject(join(d, 'l'));
    if (l.kind !== 'table') throw new Error('expected a table');
    expect(l.table.col('nsc').type).toBe('long[]');
    expect(columnLength(l.table.col('nsc'))).toBe(3);
  });

  it('refuses a table cut short or with bytes after it, naming the file; a dictionary is not a table', () => {
    const d = dir();
    const t = setFile(qBytes('([] pos:`d1`d2`d3;dates:(2001.01.01;2000.05.01;0Nd))'));
    writeFileSync(join(d, 'cut'), t.subarray(0, t.length - 3));
    expectError(() => readObject(join(d, 'cut')), 'badDatabase', join(d, 'cut'));
    writeFileSync(join(d, 'long'), Buffer.concat([t, Buffer.from([0])]));
    expectError(() => readObject(join(d, 'long')), 'badDatabase', join(d, 'long'), /1 bytes after the object/);
    writeFileSync(join(d, 'dict'), setFile(qBytes('`abc`def`gh!([] one: 1 2 3; two: 4 5 6)')));
    expectError(() => readObject(join(d, 'dict')), 'notSupported', join(d, 'dict'));
  });
});
