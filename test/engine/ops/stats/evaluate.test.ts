// ops/stats/evaluate.ts: whole parse trees over frames of tiny inline tables (SPEC 5.1): element-wise
// operators and their null rules at row and cell level, the vector conditional, ordered operators
// within a cell, distinct, literals and the row index, and the errors a tree that cannot run gets.
import { describe, expect, it } from 'vitest';
import { concatColumns, type SymbolColumn } from '../../../../engine/core/column.js';
import { TickscopeError } from '../../../../engine/core/errors.js';
import { Table } from '../../../../engine/core/table.js';
import type { Frame } from '../../../../engine/ops/stats/aggregates.js';
import { evaluate, levelOf } from '../../../../engine/ops/stats/evaluate.js';
import { checkTree } from '../../../../engine/ops/stats/tree.js';
import { vecToColumn } from '../../../../engine/ops/stats/vectors.js';
import { columnOf, expectTableEqual, tableFromRows } from '../../../helpers/table-equal.js';

/** A frame over the rows of a table (or `rows` of it), in the cells its `cell` column names. */
function frameOf(t: Table, cells: number, rows?: Int32Array, windows?: Frame['windows']): Frame {
  const c = t.col('cell');
  if (c.type !== 'int') throw new Error('cell is an int column');
  const cell = rows ? Int32Array.from(rows, (r) => c.data[r]!) : c.data;
  return { table: t, ...(rows ? { rows } : {}), n: cell.length, cell, cells, out: windows ? windows.lo.length : cells, ...(windows ? { windows } : {}) };
}

/** Each named tree evaluated over the frames, as one result table. */
function run(trees: Readonly<Record<string, unknown>>, frames: readonly Frame[]): Table {
  const t = frames[0]!.table as Table;
  const names = Object.keys(trees);
  return new Table(
    names,
    names.map((n) => vecToColumn(evaluate(checkTree(trees[n], new Set(t.names), n), frames, n, trees[n]), frames[0]!.out)),
  );
}

/** The error a tree gets, as `kind: message`. */
function errorOf(tree: unknown, frames: readonly Frame[]): string {
  try {
    run({ agg: tree }, frames);
  } catch (e) {
    if (e instanceof TickscopeError) return `${e.kind}: ${e.message}`;
    throw e;
  }
  return '';
}

// Two cells. x float, y float, n long, k long; null in various places.
const data = tableFromRows({ cell: 'int', x: 'float', y: 'float', n: 'long', k: 'long', flag: 'float' }, [
  [0, 2, 1, 2, 1, 1],
  [0, 4, 0, 4, -1, 0],
  [0, 9, null, 9, null, null],
  [0, null, 3, null, 3, 2],
  [1, 5, 5, 5, 5, -1],
  [1, 1, -2, 1, -2, 0],
]);
const frame = frameOf(data, 2);

describe('levels', () => {
  it('columns and i are per row, aggregates per cell, literals scalar; an element-wise operator takes its lowest level', () => {
    const cols = new Set(['x']);
    const level = (t: unknown): string => levelOf(checkTree(t, cols, 'agg'));
    expect([level('x'), level('i'), level(['sum', 'x']), level(3), level(['+', 1, 2]), level(['+', ['sum', 'x'], 1]), level(['+', ['sum', 'x'], 'x']), level(['prev', 'x'])]).toEqual([
      'row',
      'row',
      'cell',
      'scalar',
      'scalar',
      'cell',
      'row',
      'row',
    ]);
  });

  it('a tree that stays per row is an error naming it', () => {
    expect(errorOf('x', [frame])).toBe('badValue: agg: "x" does not reduce to one value per group; expected a tree ending in an aggregate, such as ["last", ...] or ["sum", ...]');
    expect(errorOf(['+', ['sum', 'x'], 'x'], [frame])).toBe(
      'badValue: agg: ["+",["sum","x"],"x"] does not reduce to one value per group; expected a tree ending in an aggregate, such as ["last", ...] or ["sum", ...]',
    );
  });
});

describe('element-wise operators at row level, then aggregated', () => {
  it('arithmetic: a null operand gives null, which the aggregate skips', () => {
    // rows of cell 0: x·y = 2, 0, null, null; x+y = 3, 4, null, null; x-y = 1, 4; x%y = 2, inf
    // cell 1: x·y = 25, -2; x+y = 10, -1; x-y = 0, 3; x%y = 1, -0.5
    const got = run(
      {
        mul: ['sum', ['*', 'x', 'y']],
        add: ['sum', ['+', 'x', 'y']],
        sub: ['sum', ['-', 'x', 'y']],
        div: ['max', ['%', 'x', 'y']],
        div2: ['min', ['/', 'x', 'y']],
        n: ['count', ['+', 'x', 'y']],
      },
      [frame],
    );
    const want = tableFromRows({ mul: 'float', add: 'float', sub: 'float', div: 'float', div2: 'float', n: 'long' }, [
      [2, 7, 5, Infinity, 2, 2],
      [23, 9, 3, 1, -0.5, 2],
    ]);
    expectTableEqual(got, want);
  });

  it('% follows q: x%0 is ±infinity, 0%0 is null', () => {
    const t = tableFromRows({ cell: 'int', a: 'float', b: 'float' }, [
      [0, 1, 0],
      [1, -1, 0],
      [2, 0, 0],
    ]);
    expectTableEqual(run({ q: ['first', ['%', 'a', 'b']], n: ['count', ['%', 'a', 'b']] }, [frameOf(t, 3)]), tableFromRows({ q: 'float', n: 'long' }, [[Infinity, 1], [-Infinity, 1], [null, 0]]));
  });

  it('unary operators and their nulls; floor, ceiling and signum give longs', () => {
    const t = tableFromRows({ cell: 'int', a: 'float' }, [
      [0, -2.5],
      [1, 4],
      [2, 0],
      [3, null],
      [4, -1],
    ]);
    const f = frameOf(t, 5);
    const got = run(
      {
        neg: ['first', ['neg', 'a']],
        abs: ['first', ['abs', 'a']],
        sqrt: ['first', ['sqrt', 'a']],
        exp: ['first', ['exp', 'a']],
        log: ['first', ['log', 'a']],
        floor: ['first', ['floor', 'a']],
        ceiling: ['first', ['ceiling', 'a']],
        signum: ['first', ['signum', 'a']],
      },
      [f],
    );
    const want = tableFromRows({ neg: 'float', abs: 'float', sqrt: 'float', exp: 'float', log: 'float', floor: 'long', ceiling: 'long', signum: 'long' }, [
      [2.5, 2.5, null, Math.exp(-2.5), null, -3, -2, -1],
      [-4, 4, 2, Math.exp(4), Math.log(4), 4, 4, 1],
      [-0, 0, 0, 1, -Infinity, 0, 0, 0],
      [null, null, null, null, null, null, null, null],
      [1, 1, null, Math.exp(-1), null, -1, -1, -1],
    ]);
    expectTableEqual(got, want);
  });

  it('comparisons give 1 or 0; a null equals nothing and differs from every non-null value (SPEC 4)', () => {
    const t = tableFromRows({ cell: 'int', a: 'float', b: 'float' }, [
      [0, 1, 2],
      [1, 2, 2],
      [2, 3, 2],
      [3, null, 2],
      [4, 2, null],
      [5, null, null],
    ]);
    const ops = ['=', '<>', '<', '>', '<=', '>='];
    const got = run(Object.fromEntries(ops.map((op) => [op, ['first', [op, 'a', 'b']]])), [frameOf(t, 6)]);
    const want = tableFromRows({ '=': 'boolean', '<>': 'boolean', '<': 'boolean', '>': 'boolean', '<=': 'boolean', '>=': 'boolean' }, [
      [false, true, true, false, true, false],
      [true, false, false, false, true, true],
      [false, true, false, true, false, true],
      [false, true, false, false, false, false],
      [false, true, false, false, false, false],
      [false, false, false, false, false, false],
    ]);
    expectTableEqual(got, want);
  });

  it('& and | are the lesser and greater, null when either side is', () => {
    const got = run({ lo: ['sum', ['&', 'x', 'y']], hi: ['sum', ['|', 'x', 'y']], n: ['count', ['&', 'x', 'y']] }, [frame]);
    // cell 0: pairs (2,1), (4,0): lesser 1 + 0, greater 2 + 4; cell 1: (5,5), (1,-2): 5 - 2, 5 + 1
    expectTableEqual(got, tableFromRows({ lo: 'float', hi: 'float', n: 'long' }, [[1, 6, 2], [3, 6, 2]]));
  });

  it('integral operands keep integral results: long + long is long, long % long is float', () => {
    const got = run(
      { add: ['sum', ['+', 'n', 'k']], mul: ['max', ['*', 'n', 'k']], div: ['max', ['%', 'n', 'k']], mixed: ['sum', ['+', 'n', 'x']], lt: ['sum', ['<', 'k', 'n']], lo: ['min', ['&', 'n', 'k']] },
      [frame],
    );
    // cell 0: n+k = 3, 3 (rows 2 and 3 have a null); n·k = 2, -4; n%k = 2, -4; n+x = 4, 8, 18; k<n = 1, 1, 0 (a null), 0
    // cell 1: n+k = 10, -1; n·k = 25, -2; n%k = 1, -0.5; n+x = 10, 2; k<n: 0, 1
    const want = tableFromRows({ add: 'long', mul: 'long', div: 'float', mixed: 'float', lt: 'long', lo: 'long' }, [
      [6, 2, 2, 30, 2, -1],
      [9, 25, 1, 12, 1, -2],
    ]);
    expectTableEqual(got, want);
  });
});

describe('the vector conditional ?[c;x;y]', () => {
  it('takes x where the condition is non-zero and not null, else y', () => {
    // flag: cell 0: 1, 0, null, 2; cell 1: -1, 0
    const got = run(
      {
        pick: ['sum', ['?', 'flag', 'x', 100]],
        nulls: ['sum', ['?', ['>', 'y', 0], ['%', 'x', 'y'], '0n']],
        count: ['count', ['?', ['>', 'y', 0], ['%', 'x', 'y'], '0n']],
        longs: ['sum', ['?', 'flag', 'n', 'k']],
      },
      [frame],
    );
    // pick, cell 0: 2 + 100 + 100 + null (x of row 3 is null) = 202; cell 1: 5 + 100
    // nulls: only rows whose y > 0: cell 0: 2/1 and null/3; cell 1: 5/5
    // longs, cell 0: n 2, k -1, k null, n null -> 1; cell 1: n 5, k -2 -> 3
    const want = tableFromRows({ pick: 'float', nulls: 'float', count: 'long', longs: 'long' }, [
      [202, 2, 1, 1],
      [105, 1, 1, 3],
    ]);
    expectTableEqual(got, want);
  });

  it('chooses per cell too: ["?", [">", ["sum","x"], 10], ["sum","x"], "0N"]', () => {
    // sums 15 and 6: only cell 0 passes; sum of a long and "0N" are both long, so the result is long
    const got = run({ big: ['?', ['>', ['sum', 'x'], 10], ['sum', 'x'], '0n'], bigN: ['?', ['>', ['sum', 'n'], 10], ['sum', 'n'], '0N'] }, [frame]);
    expectTableEqual(got, tableFromRows({ big: 'float', bigN: 'long' }, [[15, 15], [null, null]]));
  });
});

describe('cell values and rows together', () => {
  it('a cell value read in every row of its cell: deviations from the mean', () => {
    // cell 0: x 2, 4, 9 (mean 5); cell 1: x 5, 1 (mean 3)
    const got = run({ dev0: ['sum', ['-', 'x', ['avg', 'x']]], maxAbs: ['max', ['abs', ['-', 'x', ['avg', 'x']]]], share: ['max', ['%', 'x', ['sum', 'x']]] }, [frame]);
    expectTableEqual(got, tableFromRows({ dev0: 'float', maxAbs: 'float', share: 'float' }, [[0, 4, 9 / 15], [0, 2, 5 / 6]]));
  });

  it('element-wise operators over cell values: a ratio of sums, and the span between two timestamps exactly', () => {
    const t = tableFromRows({ cell: 'int', at: 'timestamp', x: 'float' }, [
      [0, '2024-01-02T09:30:00.000000001Z', 1],
      [0, '2024-01-02T09:30:05.000000004Z', 3],
      [1, '2024-01-02T10:00:00Z', 2],
      [1, null, null],
    ]);
    const got = run({ span: ['-', ['last', 'at'], ['first', 'at']], mean: ['%', ['sum', 'x'], ['count', 'i']] }, [frameOf(t, 2)]);
    expectTableEqual(got, tableFromRows({ span: 'timespan', mean: 'float' }, [['0D00:00:05.000000003', 2], ['0D00:00:00', 1]]));
  });

  it('literals alone fill every cell', () => {
    expectTableEqual(run({ five: 5, sum: ['+', 1, 2] }, [frame]), tableFromRows({ five: 'float', sum: 'float' }, [[5, 3], [5, 3]]));
  });

  it('i is the row of the table: count counts rows, and a frame of some rows reads their numbers', () => {
    expectTableEqual(run({ rows: ['count', 'i'], last: ['last', 'i'] }, [frame]), tableFromRows({ rows: 'long', last: 'long' }, [[4, 3], [2, 5]]));
    const some = frameOf(data, 2, Int32Array.of(1, 3, 5));
    expectTableEqual(run({ rows: ['count', 'i'], last: ['last', 'i'], x: ['sum', 'x'] }, [some]), tableFromRows({ rows: 'long', last: 'long', x: 'float' }, [[2, 3, 4], [1, 5, 1]]));
  });

  it('refuses arithmetic on timestamps per row and on symbols, naming the tree', () => {
    const t = tableFromRows({ cell: 'int', at: 'timestamp', s: 'symbol' }, [[0, '2024-01-02T09:30:00Z', 'A']]);
    const f = frameOf(t, 1);
    expect(errorOf(['max', ['-', 'at', 'at']], [f])).toBe('columnType: agg: ["max",["-","at","at"]] applies - to a timestamp value; expected numbers for -');
    expect(errorOf(['sum', ['+', 's', 1]], [f])).toBe('columnType: agg: ["sum",["+","s",1]] applies + to a symbol value; expected numbers for +');
    expect(errorOf(['sum', ['prev', 's']], [f])).toBe('columnType: agg: ["sum",["prev","s"]] applies prev to a value that is not a numeric row vector; expected prev of a numeric column or row-level tree');
    expect(errorOf(['max', 's'], [f])).toBe('columnType: agg: ["max","s"] applies max to s (symbol); expected first, last or count for a symbol column');
  });
});

describe('ordered operators within each cell, in row order', () => {
  // Cell 0 rows hold x = 3, null, 5, 2 and cell 1 (interleaved) 10, 20. w = 1, 10, 100, 1000 per row of
  // cell 0, so wsum(w, f(x)) writes the vector f(x) as digits, and count says how many are null.
  const t = tableFromRows({ cell: 'int', x: 'float', w: 'float', n: 'long' }, [
    [0, 3, 1, 3],
    [1, 10, 1, 10],
    [0, null, 10, null],
    [0, 5, 100, 5],
    [1, 20, 10, 20],
    [0, 2, 1000, 2],
  ]);
  const f = frameOf(t, 2);
  const digits = (op: string): unknown => ['wsum', 'w', [op, 'x']];
  const count = (op: string): unknown => ['count', [op, 'x']];

  it('prev, next, deltas, ratios, sums, fills', () => {
    const got = run(
      {
        prev: digits('prev'),
        prevN: count('prev'),
        next: digits('next'),
        nextN: count('next'),
        deltas: digits('deltas'),
        deltasN: count('deltas'),
        sums: digits('sums'),
        sumsN: count('sums'),
        fills: digits('fills'),
        fillsN: count('fills'),
      },
      [f],
    );
    // cell 0, x = 3, null, 5, 2:
    //   prev   = null, 3, null, 5  -> 3·10 + 5·1000 = 5030, 2 values
    //   next   = null, 5, 2, null  -> 5·10 + 2·100 = 250, 2 values
    //   deltas = 3, null, null, -3 -> 3 - 3000 = -2997, 2 values (q: the first is x itself)
    //   sums   = 3, 3, 8, 10       -> 3 + 30 + 800 + 10000 = 10833, 4 values (a null adds nothing)
    //   fills  = 3, 3, 5, 2        -> 3 + 30 + 500 + 2000 = 2533, 4 values
    // cell 1, x = 10, 20 (w 1, 10): prev null, 10 -> 100; next 20, null -> 20; deltas 10, 10 -> 110;
    //   sums 10, 30 -> 310; fills 10, 20 -> 210
    const want = tableFromRows(
      { prev: 'float', prevN: 'long', next: 'float', nextN: 'long', deltas: 'float', deltasN: 'long', sums: 'float', sumsN: 'long', fills: 'float', fillsN: 'long' },
      [
        [5030, 2, 250, 2, -2997, 2, 10833, 4, 2533, 4],
        [100, 1, 20, 1, 110, 2, 310, 2, 210, 2],
      ],
    );
    expectTableEqual(got, want);
  });

  it('ratios: the first is x itself, then x over the previous, as a float', () => {
    const got = run({ r: ['wsum', 'w', ['ratios', 'x']], n: ['count', ['ratios', 'x']], first: ['first', ['ratios', 'n']] }, [f]);
    // cell 0: 3, null, null, 2/5 -> 3 + 0.4·1000 = 403; cell 1: 10, 2 -> 10 + 20 = 30
    expectTableEqual(got, tableFromRows({ r: 'float', n: 'long', first: 'float' }, [[403, 2, 3], [30, 2, 10]]));
  });

  it('leading nulls stay null under fills; ordered operators keep a long a long', () => {
    const t2 = tableFromRows({ cell: 'int', n: 'long' }, [
      [0, null],
      [0, 4],
      [0, null],
    ]);
    const got = run({ first: ['first', ['fills', 'n']], count: ['count', ['fills', 'n']], sum: ['sum', ['deltas', 'n']], prev: ['max', ['prev', 'n']] }, [frameOf(t2, 1)]);
    expectTableEqual(got, tableFromRows({ first: 'long', count: 'long', sum: 'long', prev: 'long' }, [[4, 2, 0, 4]]));
  });
});

describe('ordered operators on booleans and ints', () => {
  // b = 1, 0, 1; k = 2147483647, 1, 5 (one cell)
  const t = tableFromRows({ cell: 'int', b: 'boolean', k: 'int' }, [
    [0, true, 2147483647],
    [0, false, 1],
    [0, true, 5],
  ]);
  const f = frameOf(t, 1);

  it('prev and next of a boolean stay booleans', () => {
    expectTableEqual(run({ prev: ['last', ['prev', 'b']], next: ['first', ['next', 'b']] }, [f]), tableFromRows({ prev: 'boolean', next: 'boolean' }, [[false, false]]));
  });

  // A running sum or a difference counts: of booleans it is a number (sums of 1 0 1 ends at 2, as q's
  // sums 101b is 1 1 2i; deltas of 1 0 1 is 1 -1 1), typed long as sum and + of booleans are.
  it('sums and deltas of a boolean are numbers, not booleans', () => {
    expectTableEqual(run({ sums: ['last', ['sums', 'b']], deltas: ['min', ['deltas', 'b']] }, [f]), tableFromRows({ sums: 'long', deltas: 'long' }, [[2, -1]]));
  });

  // A running sum of ints is long, as sum of ints and int + int are: it does not wrap past 2^31.
  it('a running sum of ints does not wrap at 2^31', () => {
    expectTableEqual(run({ sums: ['last', ['sums', 'k']] }, [f]), tableFromRows({ sums: 'long' }, [[2147483653]]));
  });

  it('sum of the same ints is long, and does not wrap', () => {
    expectTableEqual(run({ sum: ['sum', 'k'], add: ['max', ['+', 'k', 'k']] }, [f]), tableFromRows({ sum: 'long', add: 'long' }, [[2147483653, 4294967294]]));
  });
});

describe('distinct', () => {
  it('counts and sums each value once per cell; nulls are not a value', () => {
    const t = tableFromRows({ cell: 'int', x: 'float', at: 'timestamp' }, [
      [0, 3, '2024-01-02T09:30:00.000000001Z'],
      [0, 3, '2024-01-02T09:30:00.000000001Z'],
      [0, null, null],
      [0, 5, '2024-01-02T09:30:00.000000002Z'],
      [1, 3, '2024-01-02T09:30:00.000000001Z'],
      [1, null, null],
      [2, null, null],
    ]);
    const got = run({ n: ['count', ['distinct', 'x']], sum: ['sum', ['distinct', 'x']], nt: ['count', ['distinct', 'at']], max: ['max', ['distinct', 'at']] }, [frameOf(t, 3)]);
    // the value 3 of cell 1 counts there although cell 0 has it too
    const want = tableFromRows({ n: 'long', sum: 'float', nt: 'long', max: 'timestamp' }, [
      [2, 8, 2, '2024-01-02T09:30:00.000000002Z'],
      [1, 3, 1, '2024-01-02T09:30:00.000000001Z'],
      [0, 0, 0, null],
    ]);
    expectTableEqual(got, want);
  });

  it('compares symbols by their text across dictionaries, and strings too', () => {
    // a column of two partitions' dictionaries: 'A' and 'B' appear under two codes each
    const sym = concatColumns('symbol', [columnOf('symbol', ['A', 'B', '', 'A']), columnOf('symbol', ['B', 'A', 'C'])]) as SymbolColumn;
    const t = new Table(['cell', 'sym', 'str'], [columnOf('int', [0, 0, 0, 0, 0, 1, 1]), sym, columnOf('string', ['a', 'b', 'a', '', 'b', 'x', 'x'])]);
    const got = run({ syms: ['count', ['distinct', 'sym']], strs: ['count', ['distinct', 'str']] }, [frameOf(t, 2)]);
    expectTableEqual(got, tableFromRows({ syms: 'long', strs: 'long' }, [[2, 2], [2, 1]]));
  });
});

describe('several frames, and moving windows', () => {
  it('aggregates accumulate over the frames; cell-level operators apply to the totals', () => {
    const d1 = frameOf(tableFromRows({ cell: 'int', x: 'float' }, [[0, 1], [1, 4]]), 2);
    const d2 = frameOf(tableFromRows({ cell: 'int', x: 'float' }, [[0, 5], [0, null]]), 2);
    const got = run({ sum: ['sum', 'x'], mean: ['%', ['sum', 'x'], ['count', 'i']], last: ['last', 'x'] }, [d1, d2]);
    expectTableEqual(got, tableFromRows({ sum: 'float', mean: 'float', last: 'float' }, [[6, 2, 5], [4, 4, 4]]));
  });

  it('a moving window may not read a cell value into its rows', () => {
    const t = tableFromRows({ cell: 'int', x: 'float' }, [[0, 1], [1, 2]]);
    const f = frameOf(t, 2, undefined, { order: Int32Array.of(0, 1), lo: Int32Array.of(0, 0), hi: Int32Array.of(1, 2) });
    expectTableEqual(run({ sum: ['sum', 'x'] }, [f]), tableFromRows({ sum: 'float' }, [[1], [3]]));
    expect(errorOf(['sum', ['-', 'x', ['avg', 'x']]], [f])).toBe(
      'columnType: agg: ["sum",["-","x",["avg","x"]]] mixes a per-group value into rows of a moving window; expected a tree whose aggregates apply to columns, or no movingWindowSize',
    );
  });
});
