/**
 * The byte-level CSV reader (engine/storage/csv/): records as RFC 4180 and csv-parse read
 * them, values exactly as the per-cell path (parseCell over castValue) reads them, errors in the same
 * words and order, and an import stored as before.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { columnFromValues, type Scalar } from '../../../engine/core/builder.js';
import type { Column, ColumnType } from '../../../engine/core/column.js';
import { Utf8Dict } from '../../../engine/core/dict.js';
import { TickscopeError } from '../../../engine/core/errors.js';
import { Table } from '../../../engine/core/table.js';
import { formatLocalNs } from '../../../engine/core/time.js';
import { Engine } from '../../../engine/engine.js';
import { splitByPartition } from '../../../engine/storage/append.js';
import { setInt64 } from '../../../engine/storage/csv/parse-values.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile, parseCell, parseCsv } from '../../../engine/storage/import.js';
import { prepareForStorage, timeOrder } from '../../../engine/storage/prepare.js';
import type { TableSchema } from '../../../engine/storage/schema.js';
import { payloadRows, tempDir } from '../../helpers/db.js';
import { Rng } from '../../../engine/demo/rng.js';

/** A table with a column of every type. */
const ALL: TableSchema = {
  name: 'All',
  kind: 'partitioned',
  timeColumn: 'ts',
  idColumn: 'id',
  foreignKeys: {},
  columns: [
    { name: 'ts', type: 'timestamp' },
    { name: 'id', type: 'symbol' },
    { name: 'f', type: 'float' },
    { name: 'l', type: 'long' },
    { name: 'i', type: 'int' },
    { name: 'd', type: 'date' },
    { name: 'sp', type: 'timespan' },
    { name: 'b', type: 'boolean' },
    { name: 's', type: 'string' },
    { name: 'fl', type: 'float[]' },
    { name: 'll', type: 'long[]' },
    { name: 'sym', type: 'symbol' },
  ],
};

const read = (text: string | Uint8Array, tz = 'UTC'): Table => parseCsv(ALL, typeof text === 'string' ? Buffer.from(text) : text, 'f.csv', { tz });

/** A column's rows as plain values (symbols as strings, int64 as bigint, lists as arrays). */
function rowsOf(c: Column): unknown[] {
  switch (c.type) {
    case 'symbol':
      return [...c.codes].map((k) => c.dict.get(k));
    case 'string':
      return [...c.values];
    case 'float[]':
    case 'long[]':
      return Array.from({ length: c.offsets.length - 1 }, (_, i) => [...c.values.subarray(c.offsets[i]!, c.offsets[i + 1]!)]);
    default:
      return [...c.data];
  }
}

const col = (t: Table, name: string): unknown[] => rowsOf(t.col(name));

/** The error a call throws (its message), or fails the test. */
function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TickscopeError);
    expect((e as TickscopeError).kind).toBe('importFailed');
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe('CSV records', () => {
  it('reads quoted fields: delimiters, doubled quotes and line breaks inside, empty quoted fields', () => {
    const t = read('ts,id,s,sym\n2024.01.02,"A,B","say ""hi""\nthere",""\n2024.01.02,"""",",",x\n');
    expect(col(t, 'id')).toEqual(['A,B', '"']);
    expect(col(t, 's')).toEqual(['say "hi"\nthere', ',']);
    expect(col(t, 'sym')).toEqual(['', 'x']);
  });

  it('takes LF, CRLF and CR records, a BOM, no final line break, and skips empty lines', () => {
    const rows = ['ts,id,l', '2024.01.02,A,1', '', '2024.01.02,B,2', '', ''];
    for (const eol of ['\n', '\r\n', '\r']) {
      for (const bom of ['', '\ufeff']) {
        for (const last of ['', eol]) {
          const t = read(bom + eol + rows.join(eol).replace(/(\r\n|\r|\n)+$/, '') + last);
          expect(col(t, 'id')).toEqual(['A', 'B']);
          expect(col(t, 'l')).toEqual([1n, 2n]);
        }
      }
    }
  });

  it('settles the record delimiter on the first line break, as csv-parse did: another kind is data', () => {
    // LF first: a CR before a later LF belongs to the field
    expect(col(read('ts,id,sym\n2024.01.02,A,x\r\n'), 'sym')).toEqual(['x\r']);
    // CRLF first: a lone LF inside a field is data (so this record has 4 fields)
    expect(errorOf(() => read('ts,id,sym\r\n2024.01.02,A,x\ny,z\r\n'))).toBe('f.csv: Invalid Record Length: expect 3, got 4 on line 3');
  });

  it('reads a file of only a header as no rows, and an empty file as an error', () => {
    expect(read('ts,id\n').length).toBe(0);
    expect(errorOf(() => read(''))).toBe('f.csv: the file is empty; expected a header row of column names');
    expect(errorOf(() => read('\ufeff\n\n'))).toBe('f.csv: the file is empty; expected a header row of column names');
  });

  it("reports malformed records in csv-parse's words, with their line", () => {
    expect(errorOf(() => read('ts,id\n2024.01.02\n'))).toBe('f.csv: Invalid Record Length: expect 2, got 1 on line 2');
    expect(errorOf(() => read('ts,id\n2024.01.02,A,B'))).toBe('f.csv: Invalid Record Length: expect 2, got 3 on line 2');
    expect(errorOf(() => read('ts,id\n\n2024.01.02,A"B\n'))).toBe('f.csv: Invalid Opening Quote: a quote is found on field 1 at line 3, value is "A"');
    expect(errorOf(() => read('ts,id\n2024.01.02,"A"B\n'))).toBe(
      'f.csv: Invalid Closing Quote: got "B" at line 2 instead of delimiter, record delimiter, trimable character (if activated) or comment',
    );
    expect(errorOf(() => read('ts,id\n2024.01.02,"A\n'))).toBe('f.csv: Quote Not Closed: the parsing is finished with an opening quote at line 2');
  });

  it('reports a malformed record anywhere before a header error, and a header error before a bad value', () => {
    expect(errorOf(() => read('ts,id,bogus\n2024.01.02,A,1\n2024.01.02,A\n'))).toBe('f.csv: Invalid Record Length: expect 3, got 2 on line 3');
    expect(errorOf(() => read('ts,id,bogus\nnot a time,A,1\n'))).toMatch(/^f\.csv: line 1, column 3: "bogus" is not a column of All; expected names from ts, id, f/);
    expect(errorOf(() => read('ts,id,ts\n'))).toBe('f.csv: line 1: column ts appears twice');
    expect(errorOf(() => read('\n\nts,id,ts\n'))).toBe('f.csv: line 3: column ts appears twice');
    expect(errorOf(() => read('id,f\nA,1\n'))).toBe('f.csv: line 1: the header lacks ts, which every All row needs');
    expect(errorOf(() => read('ts,id,f\nnope,A,1\n2024.01.02,A,x\n'))).toMatch(/^f\.csv: line 2, column ts: "nope" is not a timestamp/);
  });

  it('leaves the bytes it was given as they were, and reads text and bytes alike', () => {
    const text = 'ts,id,s\n2024.01.02,"a""b","c""""d"\n';
    const bytes = Buffer.from(text);
    const t = read(bytes);
    expect(bytes.toString()).toBe(text);
    expect(col(t, 'id')).toEqual(['a"b']);
    expect(col(t, 's')).toEqual(['c""d']);
    expect(col(parseCsv(ALL, text, 'f.csv'), 's')).toEqual(['c""d']);
  });

  it('reads bytes that are not UTF-8 as U+FFFD, as decoding the file did', () => {
    const bytes = Buffer.concat([Buffer.from('ts,id,s\n2024.01.02,A'), Buffer.from([0xff, 0xc3]), Buffer.from(',x\xe9\n', 'latin1')]);
    const t = read(bytes);
    expect(col(t, 'id')).toEqual(['A\ufffd\ufffd']);
    expect(col(t, 's')).toEqual(['x\ufffd']);
  });
});

describe('CSV values', () => {
  it('reads every timestamp form of SPEC 2 to the exact nanosecond', () => {
    const cells = [
      '2024.03.06D14:30:00.123456789',
      '2024.03.06T14:30:00.1',
      '2024.03.06D14:30',
      '2024.03.06',
      '2024-03-06T14:30:00.000000001',
      '2024-03-06 14:30:59',
      '2024-03-06T09:30:00.000000001-05:00',
      '2024-03-06T20:00:00.5+0530',
      '2024-03-06Z',
      '1677-09-21T00:12:43.145224193',
      '2262-04-11T23:47:16.854775807',
      '1970-01-01T00:00:00.000000000',
      '1969-12-31T23:59:59.999999999',
      '0Wp',
      '-0Wp',
      '0Np',
      '',
    ];
    const t = read(`ts,id\n${cells.map((c) => `${c},A`).join('\n')}\n`);
    expect(col(t, 'ts')).toEqual([
      1709735400123456789n,
      1709735400100000000n,
      1709735400000000000n,
      1709683200000000000n,
      1709735400000000001n,
      1709735459000000000n,
      1709735400000000001n,
      1709735400500000000n,
      1709683200000000000n,
      -9223372036854775807n,
      9223372036854775807n,
      0n,
      -1n,
      9223372036854775807n,
      -9223372036854775807n,
      -9223372036854775808n,
      -9223372036854775808n,
    ]);
  });

  it('reads timestamps without a zone in the given zone, and those with one as instants', () => {
    const t = read('ts,id\n2024-07-01T09:30:00,A\n2024-07-01T09:30:00Z,A\n2024-01-02T09:30:00.000000001,A\n', 'America/New_York');
    expect(col(t, 'ts')).toEqual([1719840600000000000n, 1719826200000000000n, 1704205800000000001n]);
  });

  it('reads numbers, dates, timespans and booleans as castValue does', () => {
    const t = read(
      'ts,id,f,l,i,d,sp,b\n' +
        [
          '2024.01.02,A,101.5,9223372036854775807,2147483647,2024.01.02,09:30,true',
          '2024.01.02,A,-0,-9223372036854775807,-2147483647,2024-02-29,0D09:30:00.000000001,false',
          '2024.01.02,A,1e-7,+12,-0,2024.03-01,-1D02:03:04.5,1b',
          '2024.01.02,A,0.1,007,0n,0Nd,123D99:59,0b',
          '2024.01.02,A,1.7976931348623157e308,1e3,1e3,,9:30,1',
          '2024.01.02,A,123456789012345678,0x10,,,0Nn,0',
          '2024.01.02,A,Infinity, 12 ,0x10,,,',
          '2024.01.02,A,0n,0N,,,,',
          '2024.01.02,A,,,,,,',
        ].join('\n') +
        '\n',
    );
    expect(col(t, 'f')).toEqual([101.5, -0, 1e-7, 0.1, 1.7976931348623157e308, 123456789012345680, Infinity, NaN, NaN]);
    expect(col(t, 'l')).toEqual([
      9223372036854775807n,
      -9223372036854775807n,
      12n,
      7n,
      1000n,
      16n,
      12n,
      -9223372036854775808n,
      -9223372036854775808n,
    ]);
    expect(col(t, 'i')).toEqual([2147483647, -2147483647, 0, -2147483648, 1000, -2147483648, 16, -2147483648, -2147483648]);
    expect(col(t, 'd')).toEqual([19724, 19782, 19783, -2147483648, -2147483648, -2147483648, -2147483648, -2147483648, -2147483648]);
    expect(col(t, 'sp')).toEqual([
      34200000000000n,
      34200000000001n,
      -93784500000000n,
      10987140000000000n,
      34200000000000n,
      -9223372036854775808n,
      -9223372036854775808n,
      -9223372036854775808n,
      -9223372036854775808n,
    ]);
    expect(col(t, 'b')).toEqual([1, 0, 1, 0, 1, 0, 0, 0, 0]);
  });

  it('reads float[] and long[] cells as JSON arrays, an empty cell as an empty list', () => {
    const t = read('ts,id,fl,ll\n2024.01.02,A,"[1.5,null]","[1,2]"\n2024.01.02,A,,[]\n');
    expect(col(t, 'fl')).toEqual([[1.5, NaN], []]);
    expect(col(t, 'll')).toEqual([[1, 2], []]);
  });

  it("names each type's bad value with its line, column, the cell and the expected forms", () => {
    const bad: Array<[string, string, string]> = [
      ['ts', '2024.02.30', '"2024.02.30" is not a timestamp; expected a timestamp such as 2024.01.02D09:30:00.000000000'],
      ['f', '1,5', '"1,5" is not a float; expected a number such as 101.5 or "101.5"'],
      ['f', 'NaN', '"NaN" is not a float; expected a number such as 101.5 or "101.5"'],
      ['l', '1.5', '"1.5" is not a long; expected an integer such as 100 or "100"'],
      ['l', '9223372036854775808', '9223372036854775808 is outside the long range (±9223372036854775807)'],
      ['l', '-9223372036854775808', '-9223372036854775808 is outside the long range (±9223372036854775807)'],
      ['l', '1e20', '1e20 is not a long (a whole number)'],
      ['i', '2147483648', '2147483648 is not an int (a whole number within ±2147483647)'],
      ['i', '-2147483648', '-2147483648 is not an int (a whole number within ±2147483647)'],
      ['d', '2023-02-29', '"2023-02-29" is not a date; expected a date such as 2024.01.02'],
      ['sp', '09:60', '"09:60" is not a timespan; expected a timespan such as 0D00:00:01.5 or 00:00:01'],
      ['b', 'TRUE', '"TRUE" is not a boolean; expected a boolean: true, false, "1b" or "0b"'],
      ['fl', '[1,', '"[1," is not a float[] list; expected a JSON array such as [101.5,101.6]'],
      ['ll', '[1.5]', '"[1.5]" is not a long[] list; expected a JSON array such as [101.5,101.6]'],
    ];
    for (const [name, cell, message] of bad) {
      const quoted = /[",\n]/.test(cell) ? `"${cell}"` : cell;
      // before the bad row: a good one, an empty line and a quoted line break, so its line is 6
      const lines = [`ts,id,${name === 'ts' ? 's' : name}`, '2024.01.02,A,', '', '2024.01.02,"A\nB",', name === 'ts' ? `${quoted},A,` : `2024.01.02,A,${quoted}`];
      expect(errorOf(() => read(`${lines.join('\n')}\n`))).toBe(`f.csv: line 6, column ${name}: ${message}`);
    }
  });

  it('reports the bad value of the first column in schema order, at its first bad row', () => {
    // l (4th in the schema) is bad on line 2, f (3rd) only on line 4: f is reported, as before
    const text = 'ts,id,l,f\n2024.01.02,A,x,1\n2024.01.02,A,1,1\n2024.01.02,A,y,z\n2024.01.02,A,1,w\n';
    expect(errorOf(() => read(text))).toBe('f.csv: line 4, column f: "z" is not a float; expected a number such as 101.5 or "101.5"');
  });

  it('writes sec * 1e9 + frac as int64 words exactly', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const words = new Int32Array(2);
    const out = new BigInt64Array(words.buffer);
    const secs = [0, -1, 1, 9223372035, -9223372035, 4194303, 4194304, -4194304, 2 ** 33, -(2 ** 33)];
    for (let k = 0; k < 20000; k++) secs.push(Math.floor((rnd() - 0.5) * 2 * 9223372035));
    const wrong: string[] = [];
    for (const sec of secs) {
      for (const frac of [0, 1, 999999999, -999999999, Math.floor((rnd() - 0.5) * 2e9)]) {
        setInt64(words, 0, sec, frac);
        if (out[0] !== BigInt(sec) * 1000000000n + BigInt(frac)) wrong.push(`${sec} s + ${frac} ns: ${out[0]}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Random files against the per-cell path

const random = new Rng(1);
const rnd = (): number => random.next();
const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const int = (a: number, b: number): number => a + Math.floor(rnd() * (b - a + 1));
const pad = (n: number, w: number): string => String(n).padStart(w, '0');
const digits = (n: number): string => Array.from({ length: n }, (_, i) => String(i === 0 ? int(1, 9) : int(0, 9))).join('');

/** A cell for a type: mostly well-formed, now and then an edge or a bad one. */
const CELLS: Record<ColumnType, () => string> = {
  timestamp: () => {
    if (rnd() < 0.05) return pick(['0Wp', '-0Wp', '0Np', ' 2024.01.02', '2024.02.30', '2024.01.02D24:00', '1677.09.21D00:12:43.145224192', '2262.04.12', 'x']);
    const kdb = rnd() < 0.5;
    const y = rnd() < 0.9 ? int(1990, 2100) : int(1000, 9999);
    let s = kdb ? `${pad(y, 4)}.${pad(int(1, 12), 2)}.${pad(int(1, 28), 2)}` : `${pad(y, 4)}-${pad(int(1, 12), 2)}-${pad(int(1, 28), 2)}`;
    if (rnd() < 0.8) {
      s += (kdb ? pick(['D', 'T']) : pick(['T', ' '])) + `${pad(int(0, 23), 2)}:${pad(int(0, 59), 2)}`;
      if (rnd() < 0.8) s += `:${pad(int(0, 59), 2)}` + (rnd() < 0.7 ? `.${Array.from({ length: int(1, 9) }, () => int(0, 9)).join('')}` : '');
    }
    if (!kdb && rnd() < 0.3) s += pick(['Z', '+05:30', '-0500', '-11:45']);
    return s;
  },
  float: () => {
    if (rnd() < 0.1) return pick(['1e400', '-0', '.5', '5.', '+1.5', 'Infinity', ' 1.5', '0x1F', '0n', '4.9e-324', '0.1', '1e23', '9007199254740993', 'NaN', 'x']);
    const sig = digits(int(1, 18));
    const dot = int(0, sig.length);
    let s = (rnd() < 0.3 ? '-' : '') + sig.slice(0, dot) + (dot < sig.length ? '.' : '') + sig.slice(dot);
    if (rnd() < 0.2) s += pick(['e', 'E']) + pick(['', '+', '-']) + String(int(0, 30));
    return s;
  },
  long: () =>
    rnd() < 0.1
      ? pick(['+5', '-0', '007', ' 12 ', '1e3', '1.0', '0N', '9223372036854775807', '-9223372036854775807', '9223372036854775808', 'x'])
      : (rnd() < 0.3 ? '-' : '') + digits(int(1, 19)),
  int: () => (rnd() < 0.1 ? pick(['+5', '-0', '2147483647', '2147483648', '1e3', '0n', 'x']) : (rnd() < 0.3 ? '-' : '') + digits(int(1, 9))),
  date: () => (rnd() < 0.1 ? pick(['2024.01-02', '0Nd', '2023-02-29', ' 2024.01.02']) : `${pad(int(1000, 2999), 4)}${pick(['.', '-'])}${pad(int(1, 12), 2)}${pick(['.', '-'])}${pad(int(1, 28), 2)}`),
  timespan: () =>
    rnd() < 0.2
      ? pick(['09:30', '9:30', '99:59', '0Nn', '-0D01:00', '99999D00:00', '123456D00:00', '09:60', ' 09:30'])
      : `${rnd() < 0.2 ? '-' : ''}${rnd() < 0.5 ? `${int(0, 99999)}D` : ''}${pad(int(0, 99), int(1, 2))}:${pad(int(0, 59), 2)}${rnd() < 0.6 ? `:${pad(int(0, 59), 2)}${rnd() < 0.5 ? `.${digits(int(1, 9))}` : ''}` : ''}`,
  boolean: () => pick(['true', 'false', '1b', '0b', '1', '0', '', 'TRUE']),
  symbol: () => pick(['AAPL', 'MSFT', '', 'é', 'x"y', 'a,b', 'line\nbreak', ' sp ', '日本😀']),
  string: () => pick(['', 'text', '"quoted"', 'a,b', 'two\r\nlines', 'é']),
  'float[]': () => pick(['[1,2]', '[1.5,null]', '[]', '', ' [3] ', '[1', 'x']),
  'long[]': () => pick(['[1,2]', '[]', '', '[9007199254740991]', '[1.5]']),
};

/** What the per-cell path (the reader's specification) makes of the cells: a table, or an error. */
function expected(t: TableSchema, header: readonly string[], rows: ReadonlyArray<readonly string[]>, lines: readonly number[], tz: string): Table | string {
  try {
    return new Table(
      t.columns.map((c) => c.name),
      t.columns.map((def) => {
        const j = header.indexOf(def.name);
        const values: Array<Scalar | number[] | null> = rows.map((r, i) =>
          parseCell(def.type, j < 0 ? '' : r[j]!, tz, () => `f.csv: line ${lines[i]}, column ${def.name}`),
        );
        return columnFromValues(def.type, values);
      }),
      rows.length,
    );
  } catch (e) {
    return (e as Error).message;
  }
}

/** Whether the per-cell path takes a cell. */
function takes(type: ColumnType, cell: string, tz: string): boolean {
  try {
    parseCell(type, cell, tz, () => '');
    return true;
  } catch {
    return false;
  }
}

describe('CSV reader against the per-cell path', () => {
  it('gives the same columns, or the same first error, for random files', () => {
    let tables = 0;
    let errors = 0;
    for (let file = 0; file < 400; file++) {
      const names = ALL.columns.map((c) => c.name).filter((n) => n === 'ts' || n === 'id' || rnd() < 0.7);
      for (let i = names.length - 1; i > 0; i--) {
        const j = int(0, i);
        [names[i], names[j]] = [names[j]!, names[i]!];
      }
      const eol = pick(['\n', '\r\n', '\r']);
      const tz = rnd() < 0.2 ? 'America/New_York' : 'UTC';
      // most files clean (every cell one the per-cell path takes), the others as they come
      const clean = rnd() < 0.6;
      const cell = (type: ColumnType): string => {
        for (;;) {
          const c = CELLS[type]();
          if (!clean || takes(type, c, tz)) return c;
        }
      };
      const rows = Array.from({ length: int(0, 30) }, () => names.map((n) => cell(ALL.columns.find((c) => c.name === n)!.type)));
      const field = (s: string): string => (/[",\r\n]/.test(s) || rnd() < 0.1 ? `"${s.replace(/"/g, '""')}"` : s);
      let text = rnd() < 0.2 ? '\ufeff' : '';
      text += names.map(field).join(',') + eol;
      const lines: number[] = [];
      for (const r of rows) {
        if (rnd() < 0.1) text += eol; // an empty line, skipped
        lines.push((text.match(/\r\n|\r|\n/g) ?? []).length + 1);
        text += r.map(field).join(',') + eol;
      }
      const want = expected(ALL, names, rows, lines, tz);
      let got: Table | string;
      try {
        got = read(text, tz);
      } catch (e) {
        got = (e as Error).message;
      }
      // the same from bytes at an odd address (the scan then goes byte by byte, not by words)
      let unaligned: Table | string;
      try {
        unaligned = read(Buffer.concat([Buffer.from('-'), Buffer.from(text)]).subarray(1), tz);
      } catch (e) {
        unaligned = (e as Error).message;
      }
      expect(typeof unaligned === 'string' ? unaligned : ALL.columns.map((c) => col(unaligned as Table, c.name))).toEqual(
        typeof got === 'string' ? got : ALL.columns.map((c) => col(got as Table, c.name)),
      );
      if (typeof want === 'string' || typeof got === 'string') {
        expect(got, text).toEqual(want);
        errors++;
        continue;
      }
      for (const c of ALL.columns) expect(col(got, c.name), `${c.name} of ${JSON.stringify(text)}`).toEqual(col(want, c.name));
      tables++;
    }
    // both outcomes well represented
    expect(tables).toBeGreaterThan(100);
    expect(errors).toBeGreaterThan(100);
  });
});

describe('storing an import', () => {
  it('stores the same partitions from UTF-8 dictionaries (the reader) as from string ones', () => {
    // ids out of time order, two days, a nearly unique symbol (stored in first-use order), nulls
    const n = 20000;
    const ts: bigint[] = [];
    const ids: string[] = [];
    const exec: string[] = [];
    const tags: string[] = [];
    for (let i = 0; i < n; i++) {
      ts.push(1709683200000000000n + BigInt((i * 7919) % n) * 8_000_000_000n);
      ids.push(['MSFT', 'AAPL', 'IBM', ''][i % 4]!);
      exec.push(i % 10 === 0 ? '' : `E${(i * 31) % n}`);
      tags.push(['b', 'a', ''][i % 3]!);
    }
    const t: TableSchema = {
      name: 'T',
      kind: 'partitioned',
      timeColumn: 'ts',
      idColumn: 'id',
      foreignKeys: {},
      columns: [
        { name: 'ts', type: 'timestamp' },
        { name: 'id', type: 'symbol' },
        { name: 'exec', type: 'symbol' },
        { name: 'tag', type: 'symbol' },
      ],
    };
    const text = `ts,id,exec,tag\n${ts.map((v, i) => `${formatLocalNs(v)},${ids[i]},${exec[i]},${tags[i]}`).join('\n')}\n`;
    const fromBytes = parseCsv(t, Buffer.from(text), 'f.csv');
    expect(fromBytes.col('exec').type === 'symbol' && (fromBytes.col('exec') as { dict: unknown }).dict).toBeInstanceOf(Utf8Dict);
    const fromStrings = new Table(['ts', 'id', 'exec', 'tag'], [columnFromValues('timestamp', ts), columnFromValues('symbol', ids), columnFromValues('symbol', exec), columnFromValues('symbol', tags)]);
    const parts = [splitByPartition(t, fromBytes), splitByPartition(t, fromStrings)];
    expect([...parts[0]!.keys()]).toEqual(['2024-03-06', '2024-03-07']);
    expect([...parts[0]!.values()].map((idx) => [...idx])).toEqual([...parts[1]!.values()].map((idx) => [...idx]));
    const a = prepareForStorage(t, fromBytes);
    const b = prepareForStorage(t, fromStrings);
    expect(a.idRanges).toEqual(b.idRanges);
    expect(a.rowOrderDicts).toEqual(['exec']);
    expect(b.rowOrderDicts).toEqual(['exec']);
    for (const name of ['ts', 'id', 'exec', 'tag']) {
      const x = a.table.col(name);
      const y = b.table.col(name);
      expect(col(a.table, name)).toEqual(col(b.table, name));
      if (x.type === 'symbol' && y.type === 'symbol') {
        // the same dictionary, in the same order, under the same codes
        expect([...x.codes]).toEqual([...y.codes]);
        expect(Array.from({ length: x.dict.length }, (_, k) => x.dict.get(k))).toEqual(Array.from({ length: y.dict.length }, (_, k) => y.dict.get(k)));
        expect(x.dict.sorted).toBe(y.dict.sorted);
      }
    }
  });

  it('takes the time order of rows that come in time order from their storage positions, as the merge gives it', () => {
    const t: TableSchema = { name: 'T', kind: 'partitioned', timeColumn: 'ts', idColumn: 'id', foreignKeys: {}, columns: [{ name: 'ts', type: 'timestamp' }, { name: 'id', type: 'symbol' }] };
    // in time order, with runs of equal times across identifiers (an opening auction)
    const n = 3000;
    const ts = Array.from({ length: n }, (_, i) => 1709683200000000000n + BigInt(Math.floor(i / 7)) * 1000n);
    const ids = Array.from({ length: n }, (_, i) => ['MSFT', 'AAPL', 'IBM', 'BP'][(i * 5 + (i >> 3)) % 4]!);
    const rows = parseCsv(t, Buffer.from(`ts,id\n${ts.map((v, i) => `${formatLocalNs(v)},${ids[i]}`).join('\n')}\n`), 'f.csv');
    const p = prepareForStorage(t, rows);
    expect(p.timeOrder).toBeDefined();
    expect([...p.timeOrder!]).toEqual([...timeOrder((p.table.col('ts') as { data: BigInt64Array }).data, p.idRanges!)]);
    // rows out of time order: left to the merge
    const shuffled = rows.take(Int32Array.from({ length: n }, (_, i) => (i * 7) % n));
    expect(prepareForStorage(t, shuffled).timeOrder).toBeUndefined();
  });

  it('splits rows by UTC day with exact bounds, and refuses a null time', () => {
    const t: TableSchema = { name: 'T', kind: 'partitioned', timeColumn: 'ts', idColumn: 'id', foreignKeys: {}, columns: [{ name: 'ts', type: 'timestamp' }, { name: 'id', type: 'symbol' }] };
    const day = 86400000000000n;
    const ts = [day - 1n, day, 0n, -1n, 9223372036854775807n, -9223372036854775807n, day * 2n - 1n, day];
    const rows = new Table(['ts', 'id'], [columnFromValues('timestamp', ts), columnFromValues('symbol', ts.map(() => 'A'))]);
    const split = splitByPartition(t, rows);
    expect(Object.fromEntries([...split].map(([k, idx]) => [k, [...idx]]))).toEqual({
      '1970-01-01': [0, 2],
      '1970-01-02': [1, 6, 7],
      '1969-12-31': [3],
      '2262-04-11': [4],
      '1677-09-21': [5],
    });
    const withNull = new Table(['ts', 'id'], [columnFromValues('timestamp', [-9223372036854775807n, null]), columnFromValues('symbol', ['A', 'A'])]);
    expect(() => splitByPartition(t, withNull)).toThrow(/row 2: ts is null; every T row needs its time partition column/);
  });

  it('imports a file to the same answers as the rows it was written from, across days and instruments', () => {
    const db = Database.create(join(tempDir(), 'db'));
    const lines = ['eventTimestamp,instrumentID,price,volume,executionID'];
    const want: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 5000; i++) {
      const ns = 1709735400000000000n + BigInt(i) * 37_123_456_789n; // over two UTC days
      const id = ['MSFT', 'AAPL', 'IBM'][i % 3]!;
      const iso = formatLocalNs(ns);
      lines.push(`${iso},${id},${(100 + i / 8).toString()},${i},X${i}`);
      want.push({ eventTimestamp: iso, instrumentID: id, price: 100 + i / 8, volume: i, executionID: `X${i}` });
    }
    const file = join(tempDir(), 't.csv');
    writeFileSync(file, lines.join('\r\n'));
    expect(importFile(db, 'Trade', file)).toMatchObject({ rows: 5000, partitions: ['2024-03-06', '2024-03-07', '2024-03-08'] });
    const got = payloadRows(new Engine([db]), 'getTicks', { table: 'Trade', columns: ['instrumentID', 'price', 'volume', 'executionID'] });
    expect(got).toEqual(want);
  });
});
