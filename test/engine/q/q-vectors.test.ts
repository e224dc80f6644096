/**
 * q's own IPC serializations (qPython's vectors, test/fixtures/q-ipc-vectors: 118 q expressions and
 * the bytes q made of each, after the 8-byte header; 3 compressed messages) read by both decoders:
 * decodeMessage (engine/q/decode.ts, item by item, what a call's arguments go through) and the
 * columnar decoder (engine/q/columns.ts, what a kdb+ reader and a tickerplant subscriber use).
 * Every vector has its expected value written here; the test fails if a vector is added or missing.
 *
 * - Item decoder: decodes 85 of 118: the 41 atoms (of every type, 16 of them nulls, 3 guids;
 *   nulls as null, temporal values as their q literals, symbols as QSymbol, the null guid as null),
 *   the 34 vectors (3 char vectors as strings, 14 of booleans and numbers, 4 of symbols, 4 lists of
 *   strings, 8 temporal, 1 of guids), `()`, the 5 mixed general lists, `::` (Q_NULL) and the 3
 *   symbol-keyed dictionaries. Refuses 33, naming the q type: the q error `1+`` (-128); the 12
 *   functions ({x+y}, xbar: lambdas, 100; not: a unary primitive, 101; and: an operator, 102;
 *   {x+y}[3], insert [1], md5: projections, 104; any: a composition, 105; save: each, 106; raze:
 *   over, 107; sums: scan, 108; prev: each-prior, 109); the 3 dictionaries keyed by a long vector or
 *   a general list; the dictionary of a table; the 14 tables and 2 keyed tables (98, which the
 *   columnar decoder reads).
 * - Columnar decoder: decodes 50 of 118: the 34 vectors as one column each (a char vector as a
 *   column of one char per row: symbols, a space the null symbol), `()` as no columns, the 13 tables
 *   whose columns are all of Tickscope's types and the 2 keyed tables. Refuses 68, naming the q type
 *   (and the column where there is one): the 41 atoms, the q error, `::`, the 12 functions, the 5
 *   mixed general lists (an atom where a column's vector should be), 7 dictionaries (of atoms, of a
 *   table, with a mixed value, keyed by other than symbols) and the table whose `misc` column mixes
 *   a string, a long and a date.
 * - Written byte for byte by the writers the gateway answers with (engine/q/codec.ts's QWriter and
 *   engine/output/q-result.ts's writeTable): 42 of 118: 14 atoms and objects of a header or an
 *   error (longs with 0N, char vectors, symbols, timestamps with 0Np, the q error, `()`), the
 *   header-like dictionary `x`y!(`a;2), the 18 vectors of a result column's q type (boolean, int,
 *   long, float, symbol, timestamp, date, timespan, lists of strings) as a one-column table's column,
 *   the 7 tables of result types and the 2 keyed tables (key and value tables each by writeTable).
 *   Not written, as the gateway never writes them: bytes, shorts, reals, months, datetimes, minutes,
 *   seconds, times, guids, char atoms, other dictionaries, and tables with a char column or a char
 *   atom among strings (read back as symbols or strings, so written as those).
 * - The 3 compressed messages unpack (decompress.ts) to what q sends uncompressed, and read as
 *   their columns (a symbol vector, two tables) through decodeColumnsMessage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Column, ColumnType } from '../../../engine/core/column.js';
import { TickscopeError } from '../../../engine/core/errors.js';
import { Table } from '../../../engine/core/table.js';
import { decompressBody, MSG_SYNC, QWriter } from '../../../engine/q/codec.js';
import { decodeColumn, decodeColumns, decodeColumnsMessage, type QColumns } from '../../../engine/q/columns.js';
import { decodeMessage, Q_NULL, QSymbol } from '../../../engine/q/decode.js';
import { decompressBlock } from '../../../engine/q/decompress.js';
import { qTypeName } from '../../../engine/q/types.js';
import { writeTable } from '../../../engine/output/q-result.js';
import { columnRows } from '../../helpers/column-rows.js';

const NULL64 = -9223372036854775808n;
const NULL32 = -2147483648;

/** A refusal: the error's message matches. */
class Refused {
  constructor(readonly re: RegExp) {}
}
const refused = (re: RegExp): Refused => new Refused(re);

/** One column as its type and rows; a whole object's columns. */
type ColumnWant = readonly [ColumnType, readonly unknown[]];
interface ColumnsWant {
  readonly shape: QColumns['shape'];
  readonly columns: Readonly<Record<string, ColumnWant>>;
  readonly keyColumns?: number;
}

interface Case {
  /** decodeMessage's value, or its refusal. */
  readonly item: unknown;
  /** The columnar decoder's: one column (decodeColumn), the columns of an object (decodeColumns), or a refusal; atoms are refused naming their type. */
  readonly cols?: ColumnWant | ColumnsWant | Refused;
  /** Written again by the gateway's writers: as a table, a keyed table, one column of a table, or with QWriter. */
  readonly write?: 'table' | 'keyed' | 'column' | ((w: QWriter) => void);
}

const sym = (s: string): QSymbol => new QSymbol(s);
/** ns since 1970 of a UTC time. */
const ns = (iso: string): bigint => BigInt(Date.parse(`${iso}Z`)) * 1_000_000n;
/** days since 1970 of a date. */
const day = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
const TABLE = refused(/^q message: a table \(q type 98\); arguments are a dictionary$/);
const KEYED = refused(/^q message: a dictionary whose keys are a table \(q type 98\); arguments are a dictionary of symbols to values$/);
const code = (name: string, type: number): Case => {
  const re = new RegExp(`^q message: ${name.replace(/[()\\/'?]/g, '\\$&')} \\(q type ${type}\\)`);
  return { item: refused(re), cols: refused(re) };
};
const charsOf = (s: string): string[] => [...s].map((c) => (c === ' ' ? '' : c));
const fox = 'quick brown fox jumps over a lazy dog';
const dent = ['symbol', ['Dent', 'Beeblebrox', 'Prefect']] as const;
const iq = ['long', [98n, 42n, 126n]] as const;
const dates = ['date', [day('2001-01-01'), day('2000-05-01'), NULL32]] as const;
const guid = '8c680a01-5a49-5aab-5a65-d4bfddb6a661';

/** Every vector of QExpressions3.out, in the file's order. */
const CASES: ReadonlyArray<readonly [string, Case]> = [
  ['1+`', { item: refused(/^q message: the client sent an error: "type"$/), cols: refused(/^q message: an error \(q type -128\): "type"$/), write: (w) => w.error('type') }],
  ['1', { item: 1, write: (w) => w.long(1) }],
  ['1i', { item: 1 }],
  ['-234h', { item: -234 }],
  ['0b', { item: false }],
  ['1b', { item: true }],
  ['0x2a', { item: 42 }],
  // past 2^53: its digits
  ['89421099511627575j', { item: '89421099511627575', write: (w) => w.long(89421099511627575n) }],
  ['3.234', { item: 3.234 }],
  ['5.5e', { item: 5.5 }],
  ['"0"', { item: '0' }],
  ['"abc"', { item: 'abc', cols: ['symbol', ['a', 'b', 'c']], write: (w) => w.chars('abc') }],
  ['""', { item: '', cols: ['symbol', []], write: (w) => w.chars('') }],
  [`"${fox}"`, { item: fox, cols: ['symbol', charsOf(fox)], write: (w) => w.chars(fox) }],
  ['`abc', { item: sym('abc'), write: (w) => w.symbol('abc') }],
  ['`quickbrownfoxjumpsoveralazydog', { item: sym('quickbrownfoxjumpsoveralazydog'), write: (w) => w.symbol('quickbrownfoxjumpsoveralazydog') }],
  ['2000.01.04D05:36:57.600', { item: '2000.01.04D05:36:57.600000000', write: (w) => w.timestamp(ns('2000-01-04T05:36:57.600')) }],
  ['2001.01m', { item: '2001.01.01' }],
  ['2001.01.01', { item: '2001.01.01' }],
  ['2000.05.01', { item: '2000.05.01' }],
  ['2000.01.04T05:36:57.600', { item: '2000.01.04D05:36:57.600000000' }],
  ['0D05:36:57.600', { item: '0D05:36:57.600000000' }],
  ['12:01', { item: '0D12:01:00.000000000' }],
  ['12:05:00', { item: '0D12:05:00.000000000' }],
  ['12:04:59.123', { item: '0D12:04:59.123000000' }],
  ['0x00', { item: 0 }],
  ['0Nh', { item: null }],
  ['0N', { item: null, write: (w) => w.long(NULL64) }],
  ['0Ni', { item: null }],
  ['0Nj', { item: null, write: (w) => w.long(NULL64) }],
  ['0Ne', { item: null }],
  ['0n', { item: null }],
  ['" "', { item: ' ' }],
  ['`', { item: sym(''), write: (w) => w.symbol('') }],
  ['0Np', { item: null, write: (w) => w.timestamp(NULL64) }],
  ['0Nm', { item: null }],
  ['0Nd', { item: null }],
  ['0Nz', { item: null }],
  ['0Nn', { item: null }],
  ['0Nu', { item: null }],
  ['0Nv', { item: null }],
  ['0Nt', { item: null }],
  ['()', { item: [], cols: { shape: 'list', columns: {} }, write: (w) => w.vector(0, 0) }],
  ['(0b;1b;0b)', { item: [false, true, false], cols: ['boolean', [false, true, false]], write: 'column' }],
  ['(0x01;0x02;0xff)', { item: [1, 2, 255], cols: ['int', [1, 2, 255]] }],
  ['(1h;2h;3h)', { item: [1, 2, 3], cols: ['int', [1, 2, 3]] }],
  ['(1h;0Nh;3h)', { item: [1, null, 3], cols: ['int', [1, NULL32, 3]] }],
  ['1 2 3', { item: [1, 2, 3], cols: ['long', [1n, 2n, 3n]], write: 'column' }],
  ['1 0N 3', { item: [1, null, 3], cols: ['long', [1n, NULL64, 3n]], write: 'column' }],
  ['(1i;2i;3i)', { item: [1, 2, 3], cols: ['int', [1, 2, 3]], write: 'column' }],
  ['(1i;0Ni;3i)', { item: [1, null, 3], cols: ['int', [1, NULL32, 3]], write: 'column' }],
  ['(1j;2j;3j)', { item: [1, 2, 3], cols: ['long', [1n, 2n, 3n]], write: 'column' }],
  ['(1j;0Nj;3j)', { item: [1, null, 3], cols: ['long', [1n, NULL64, 3n]], write: 'column' }],
  ['(5.5e; 8.5e)', { item: [5.5, 8.5], cols: ['float', [5.5, 8.5]] }],
  ['(5.5e; 0Ne)', { item: [5.5, null], cols: ['float', [5.5, NaN]] }],
  ['3.23 6.46', { item: [3.23, 6.46], cols: ['float', [3.23, 6.46]], write: 'column' }],
  ['3.23 0n', { item: [3.23, null], cols: ['float', [3.23, NaN]], write: 'column' }],
  ['(1;`bcd;"0bc";5.5e)', { item: [1, sym('bcd'), '0bc', 5.5], cols: refused(/^q message column x: a long atom \(q type -7\); a column is a simple vector/) }],
  ['(42;::;`foo)', { item: [42, Q_NULL, sym('foo')], cols: refused(/^q message column x: a long atom \(q type -7\)/) }],
  ['(1;2h;3.234;"4")', { item: [1, 2, 3.234, '4'], cols: refused(/^q message column x: a long atom \(q type -7\)/) }],
  ['(`one;2 3;"456";(7;8 9))', { item: [sym('one'), [2, 3], '456', [7, [8, 9]]], cols: refused(/^q message column x: a symbol atom \(q type -11\)/) }],
  ['(enlist 1h; 2; enlist 3j)', { item: [[1], 2, [3]], cols: refused(/^q message column x1: a long atom \(q type -7\)/) }],
  ['`the`quick`brown`fox', { item: ['the', 'quick', 'brown', 'fox'], cols: ['symbol', ['the', 'quick', 'brown', 'fox']], write: 'column' }],
  ['`jumps`over`a`lazy`dog', { item: ['jumps', 'over', 'a', 'lazy', 'dog'], cols: ['symbol', ['jumps', 'over', 'a', 'lazy', 'dog']], write: 'column' }],
  ['``quick``fox', { item: ['', 'quick', '', 'fox'], cols: ['symbol', ['', 'quick', '', 'fox']], write: 'column' }],
  ['``', { item: ['', ''], cols: ['symbol', ['', '']], write: 'column' }],
  ['("quick"; "brown"; "fox"; "jumps"; "over"; "a lazy"; "dog")', { item: ['quick', 'brown', 'fox', 'jumps', 'over', 'a lazy', 'dog'], cols: ['string', ['quick', 'brown', 'fox', 'jumps', 'over', 'a lazy', 'dog']], write: 'column' }],
  // a char atom among strings: a one-char string (written back as a char vector, so not compared)
  ['("quick"; " "; "fox"; "jumps"; "over"; "a lazy"; "dog")', { item: ['quick', ' ', 'fox', 'jumps', 'over', 'a lazy', 'dog'], cols: ['string', ['quick', ' ', 'fox', 'jumps', 'over', 'a lazy', 'dog']] }],
  ['("one"; "two"; "3")', { item: ['one', 'two', '3'], cols: ['string', ['one', 'two', '3']] }],
  ['("one"; "two"; enlist "3")', { item: ['one', 'two', '3'], cols: ['string', ['one', 'two', '3']], write: 'column' }],
  ['2000.01.04D05:36:57.600 0Np', { item: ['2000.01.04D05:36:57.600000000', null], cols: ['timestamp', [ns('2000-01-04T05:36:57.600'), NULL64]], write: 'column' }],
  ['(2001.01m; 0Nm)', { item: ['2001.01.01', null], cols: ['date', [day('2001-01-01'), NULL32]] }],
  ['2001.01.01 2000.05.01 0Nd', { item: ['2001.01.01', '2000.05.01', null], cols: dates, write: 'column' }],
  ['2000.01.04T05:36:57.600 0Nz', { item: ['2000.01.04D05:36:57.600000000', null], cols: ['timestamp', [ns('2000-01-04T05:36:57.600'), NULL64]] }],
  ['0D05:36:57.600 0Nn', { item: ['0D05:36:57.600000000', null], cols: ['timespan', [20_217_600_000_000n, NULL64]], write: 'column' }],
  ['12:01 0Nu', { item: ['0D12:01:00.000000000', null], cols: ['timespan', [43_260_000_000_000n, NULL64]] }],
  ['12:05:00 0Nv', { item: ['0D12:05:00.000000000', null], cols: ['timespan', [43_500_000_000_000n, NULL64]] }],
  ['12:04:59.123 0Nt', { item: ['0D12:04:59.123000000', null], cols: ['timespan', [43_499_123_000_000n, NULL64]] }],
  ['::', { item: Q_NULL, cols: refused(/^q message: the generic null :: \(q type 101\)/) }],
  ['{x+y}', code('a lambda', 100)],
  ['{x+y}[3]', code('a projection', 104)],
  ['insert [1]', code('a projection', 104)],
  ['xbar', code('a lambda', 100)],
  ['not', code('a unary primitive', 101)],
  ['and', code('an operator', 102)],
  ['md5', code('a projection', 104)],
  ['any', code('a composition', 105)],
  ['save', code("an each (f')", 106)],
  ['raze', code('an over (f/)', 107)],
  ['sums', code('a scan (f\\)', 108)],
  ['prev', code("an each-prior (f':)", 109)],
  ['(enlist `a)!(enlist 1)', { item: { a: 1 }, cols: refused(/^q message: a dictionary whose values are a long vector \(q type 7\), not a list of vectors/) }],
  ['1 2!`abc`cdefgh', { item: refused(/^q message: a dictionary whose keys are a long vector \(q type 7\)/), cols: refused(/^q message: a dictionary whose keys are a long vector \(q type 7\)/) }],
  ['`abc`def`gh!([] one: 1 2 3; two: 4 5 6)', { item: TABLE, cols: refused(/^q message: a dictionary whose values are a table \(q type 98\)/) }],
  [
    '(`x`y!(`a;2))',
    {
      item: { x: 'a', y: 2 },
      cols: refused(/^q message column x: a symbol atom \(q type -11\)/),
      // as the gateway writes its header: symbol keys, a general list of atoms
      write: (w) => {
        w.u8(99);
        w.vector(11, 2);
        w.symText('x');
        w.symText('y');
        w.vector(0, 2);
        w.symbol('a');
        w.long(2);
      },
    },
  ],
  ['(1;2h;3.234;"4")!(`one;2 3;"456";(7;8 9))', { item: refused(/^q message: a dictionary whose keys are a general list \(q type 0\) of other than symbols/), cols: refused(/^q message: a dictionary whose keys are a general list \(q type 0\)/) }],
  ['(0 1; 2 3)!`first`second', { item: refused(/^q message: a dictionary whose keys are a general list \(q type 0\) of other than symbols/), cols: refused(/^q message: a dictionary whose keys are a general list \(q type 0\)/) }],
  ['`A`B`C!((1;3.234;3);(`x`y!(`a;2));5.5e)', { item: { A: [1, 3.234, 3], B: { x: 'a', y: 2 }, C: 5.5 }, cols: refused(/^q message column A: row 0 is a long atom \(q type -7\) in a general list \(q type 0\)/) }],
  ['flip `abc`def!(1 2 3; 4 5 6)', { item: TABLE, cols: { shape: 'table', columns: { abc: ['long', [1n, 2n, 3n]], def: ['long', [4n, 5n, 6n]] } }, write: 'table' }],
  ['flip `name`iq!(`Dent`Beeblebrox`Prefect;98 42 126)', { item: TABLE, cols: { shape: 'table', columns: { name: dent, iq } }, write: 'table' }],
  // a char column, one char per row: symbols, q's null char (a space) the null symbol
  ['flip `name`iq`grade!(`Dent`Beeblebrox`Prefect;98 42 126;"a c")', { item: TABLE, cols: { shape: 'table', columns: { name: dent, iq, grade: ['symbol', ['a', '', 'c']] } } }],
  [
    'flip `name`iq`fullname!(`Dent`Beeblebrox`Prefect;98 42 126;("Arthur Dent"; "Zaphod Beeblebrox"; "Ford Prefect"))',
    { item: TABLE, cols: { shape: 'table', columns: { name: dent, iq, fullname: ['string', ['Arthur Dent', 'Zaphod Beeblebrox', 'Ford Prefect']] } }, write: 'table' },
  ],
  ['flip `name`iq`fullname!(`Dent`Beeblebrox`Prefect;98 42 126;("Arthur Dent"; " "; "Ford Prefect"))', { item: TABLE, cols: { shape: 'table', columns: { name: dent, iq, fullname: ['string', ['Arthur Dent', ' ', 'Ford Prefect']] } } }],
  [
    `flip \`name\`iq\`misc!(\`Dent\`Beeblebrox\`Prefect;98 42 126;("The Hitch Hiker's Guide to the Galaxy"; 160; 1979.10.12))`,
    { item: TABLE, cols: refused(/^q message column misc: row 1 is a long atom \(q type -7\) in a general list \(q type 0\); a general list column reads as strings/) },
  ],
  ['([] sc:1 2 3; nsc:(1 2; 3 4; 5 6 7))', { item: TABLE, cols: { shape: 'table', columns: { sc: ['long', [1n, 2n, 3n]], nsc: ['long[]', [[1, 2], [3, 4], [5, 6, 7]]] } }, write: 'table' }],
  ['([] sc:1 2 3; nsc:(1 2; 3 4; 5 6))', { item: TABLE, cols: { shape: 'table', columns: { sc: ['long', [1n, 2n, 3n]], nsc: ['long[]', [[1, 2], [3, 4], [5, 6]]] } }, write: 'table' }],
  ['([] name:`symbol$(); iq:`int$())', { item: TABLE, cols: { shape: 'table', columns: { name: ['symbol', []], iq: ['int', []] } }, write: 'table' }],
  ['([] pos:`d1`d2`d3;dates:(2001.01.01;2000.05.01;0Nd))', { item: TABLE, cols: { shape: 'table', columns: { pos: ['symbol', ['d1', 'd2', 'd3']], dates } }, write: 'table' }],
  [
    '([eid:1001 1002 1003] pos:`d1`d2`d3;dates:(2001.01.01;2000.05.01;0Nd))',
    { item: KEYED, cols: { shape: 'keyedTable', keyColumns: 1, columns: { eid: ['long', [1001n, 1002n, 1003n]], pos: ['symbol', ['d1', 'd2', 'd3']], dates } }, write: 'keyed' },
  ],
  ['([k: 1 2 3] v: `a`b`c)', { item: KEYED, cols: { shape: 'keyedTable', keyColumns: 1, columns: { k: ['long', [1n, 2n, 3n]], v: ['symbol', ['a', 'b', 'c']] } }, write: 'keyed' }],
  ['0Ng', { item: null }],
  ['"G"$"8c680a01-5a49-5aab-5a65-d4bfddb6a661"', { item: guid }],
  // the null guid's bytes: null
  ['"G"$"00000000-0000-0000-0000-000000000000"', { item: null }],
  ['("G"$"8c680a01-5a49-5aab-5a65-d4bfddb6a661"; 0Ng)', { item: [guid, null], cols: ['string', [guid, '']] }],
  ['1#([] sym:`x`x`x;str:"  a")', { item: TABLE, cols: { shape: 'table', columns: { sym: ['symbol', ['x']], str: ['symbol', ['']] } } }],
  ['-1#([] sym:`x`x`x;str:"  a")', { item: TABLE, cols: { shape: 'table', columns: { sym: ['symbol', ['x']], str: ['symbol', ['a']] } } }],
  ['2#([] sym:`x`x`x`x;str:"  aa")', { item: TABLE, cols: { shape: 'table', columns: { sym: ['symbol', ['x', 'x']], str: ['symbol', ['', '']] } } }],
  ['-2#([] sym:`x`x`x`x;str:"  aa")', { item: TABLE, cols: { shape: 'table', columns: { sym: ['symbol', ['x', 'x']], str: ['symbol', ['a', 'a']] } } }],
];

/** Pairs of lines: a q expression and the hex of its serialization. */
function vectors(file: string): Array<{ q: string; bytes: Uint8Array }> {
  const lines = readFileSync(join(process.cwd(), 'test/fixtures/q-ipc-vectors', file), 'utf8')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '');
  const out: Array<{ q: string; bytes: Uint8Array }> = [];
  for (let i = 0; i + 1 < lines.length; i += 2) out.push({ q: lines[i]!, bytes: new Uint8Array(Buffer.from(lines[i + 1]!.trim(), 'hex')) });
  return out;
}

/** The error `f` throws (a TickscopeError), or null. */
function thrown(f: () => unknown): TickscopeError | null {
  try {
    f();
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(TickscopeError);
    return e as TickscopeError;
  }
}

const isColumn = (w: Case['cols']): w is ColumnWant => Array.isArray(w);
const plain = (c: Column): ColumnWant => [c.type, columnRows(c)];

/** What the writers make of a case, or null when it is not written. */
function rewritten(c: Case, bytes: Uint8Array): Uint8Array | null {
  if (c.write === undefined) return null;
  const w = QWriter.forMessage();
  const result = (table: Table) => ({ table, outputTZ: 'UTC', tableName: 'T', timeColumn: null, idColumn: '' });
  if (c.write === 'column') writeTable(w, result(new Table(['x'], [decodeColumn(bytes)])));
  else if (c.write === 'table' || c.write === 'keyed') {
    const q = decodeColumns(bytes);
    const part = (from: number, to: number): Table => new Table(q.names.slice(from, to), q.columns.slice(from, to), q.rows);
    if (c.write === 'keyed') {
      w.u8(99);
      writeTable(w, result(part(0, q.keyColumns)));
    }
    writeTable(w, result(part(q.keyColumns, q.names.length)));
  } else c.write(w);
  return new Uint8Array(w.message(MSG_SYNC).subarray(8));
}

/** The bytes of a one-column table named x, up to its column's. */
function columnTablePrefix(): Uint8Array {
  const w = QWriter.forMessage();
  w.u8(98);
  w.u8(0);
  w.u8(99);
  w.vector(11, 1);
  w.symText('x');
  w.vector(0, 1);
  return new Uint8Array(w.message(MSG_SYNC).subarray(8));
}

describe("q's own serializations (QExpressions3.out)", () => {
  const all = vectors('QExpressions3.out');
  const cases = new Map(CASES);

  it('has an expectation for each of the 118 vectors, in the file', () => {
    expect(all).toHaveLength(118);
    expect(all.map((v) => v.q)).toEqual(CASES.map(([q]) => q));
  });

  it('decodes each item by item as a call would, or refuses it naming its q type', () => {
    for (const { q, bytes } of all) {
      const want = cases.get(q)!.item;
      if (want instanceof Refused) expect(thrown(() => decodeMessage(bytes))?.message, q).toMatch(want.re);
      else expect(decodeMessage(bytes), q).toStrictEqual(want);
    }
  });

  it('decodes each as columns, or refuses it naming its q type (and column)', () => {
    for (const { q, bytes } of all) {
      const want = cases.get(q)!.cols;
      if (want === undefined) {
        // atoms: no column
        expect(bytes[0]! >= 0x80, q).toBe(true);
        expect(thrown(() => decodeColumns(bytes))?.message, q).toBe(`q message: ${qTypeName(bytes[0]! - 256)}; expected a table, a keyed table, a dictionary of columns (symbols to vectors) or a list of columns`);
      } else if (want instanceof Refused) {
        expect(thrown(() => decodeColumns(bytes))?.message, q).toMatch(want.re);
      } else if (isColumn(want)) {
        expect(plain(decodeColumn(bytes)), q).toEqual(want);
      } else {
        const got = decodeColumns(bytes);
        expect(got.shape, q).toBe(want.shape);
        expect(got.keyColumns, q).toBe(want.keyColumns ?? 0);
        expect(Object.fromEntries(got.names.map((n, k) => [n, plain(got.columns[k]!)])), q).toEqual(want.columns);
        expect(got.names, q).toEqual(Object.keys(want.columns));
      }
    }
  });

  it("writes again, byte for byte, what the gateway's writers write", () => {
    const prefix = columnTablePrefix();
    for (const { q, bytes } of all) {
      const c = cases.get(q)!;
      const out = rewritten(c, bytes);
      if (out === null) continue;
      const want = c.write === 'column' ? new Uint8Array([...prefix, ...bytes]) : bytes;
      expect(Buffer.from(out).toString('hex'), q).toBe(Buffer.from(want).toString('hex'));
    }
  });

  it('counts what each decoder reads, refuses and writes as the comment above says', () => {
    const n = (f: (c: Case) => boolean): number => CASES.filter(([, c]) => f(c)).length;
    const counts = {
      item: n((c) => !(c.item instanceof Refused)),
      itemRefused: n((c) => c.item instanceof Refused),
      columns: n((c) => c.cols !== undefined && !(c.cols instanceof Refused)),
      columnsRefused: n((c) => c.cols === undefined || c.cols instanceof Refused),
      written: n((c) => c.write !== undefined),
    };
    expect(counts).toEqual({ item: 85, itemRefused: 33, columns: 50, columnsRefused: 68, written: 42 });
  });
});

describe("q's own compressed messages (QCompressedExpressions3.out)", () => {
  const WANT: Readonly<Record<string, ColumnWant | ColumnsWant>> = {
    '1000#`q': ['symbol', Array(1000).fill('q')],
    '([] q:1000#`q)': { shape: 'table', columns: { q: ['symbol', Array(1000).fill('q')] } },
    '([] a:til 200;b:25+til 200;c:200#`a)': {
      shape: 'table',
      columns: {
        a: ['long', Array.from({ length: 200 }, (_, k) => BigInt(k))],
        b: ['long', Array.from({ length: 200 }, (_, k) => BigInt(25 + k))],
        c: ['symbol', Array(200).fill('a')],
      },
    },
  };

  it('unpacks each and reads its columns; the columns written again are the unpacked bytes', async () => {
    const all = vectors('QCompressedExpressions3.out');
    expect(all.map((v) => v.q)).toEqual(Object.keys(WANT));
    for (const { q, bytes } of all) {
      // a whole message: header (little-endian, sync, compressed), then the unpacked length and body
      const header = Buffer.from([1, 1, 1, 0, 0, 0, 0, 0]);
      header.writeUInt32LE(8 + bytes.length, 4);
      const msg = new Uint8Array([...header, ...bytes]);
      const size = Buffer.from(bytes).readInt32LE(0);
      const plainBody = decompressBlock(bytes.subarray(4), size - 8, 1 << 20);
      expect(Buffer.from(await decompressBody(msg, 1 << 20)), q).toEqual(Buffer.from(plainBody));
      const want = WANT[q]!;
      const w = QWriter.forMessage();
      const result = (table: Table) => ({ table, outputTZ: 'UTC', tableName: 'T', timeColumn: null, idColumn: '' });
      if (isColumn(want)) {
        expect(thrown(() => decodeColumnsMessage(msg, { maxBytes: 1 << 20 }))?.message, q).toMatch(/^q message: a symbol vector \(q type 11\); expected a table/);
        const col = decodeColumn(plainBody);
        expect(plain(col), q).toEqual(want);
        writeTable(w, result(new Table(['x'], [col])));
        expect(Buffer.from(w.message(MSG_SYNC).subarray(8)).toString('hex'), q).toBe(Buffer.from([...columnTablePrefix(), ...plainBody]).toString('hex'));
      } else {
        const got = decodeColumnsMessage(msg, { maxBytes: 1 << 20 });
        expect(got.shape, q).toBe(want.shape);
        expect(Object.fromEntries(got.names.map((n, k) => [n, plain(got.columns[k]!)])), q).toEqual(want.columns);
        writeTable(w, result(new Table(got.names, got.columns)));
        expect(Buffer.from(w.message(MSG_SYNC).subarray(8)).toString('hex'), q).toBe(Buffer.from(plainBody).toString('hex'));
      }
    }
  });
});
