// ops/stats/tree.ts: checking a JSON parse tree against a table's columns (SPEC 5.1), and the
// properties the planner reads from a checked tree (columns read, combinable, order-sensitive).
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../../engine/core/errors.js';
import { checkTree, combinable, orderSensitive, treeColumns } from '../../../../engine/ops/stats/tree.js';
import { tableFromRows, expectTableEqual } from '../../../helpers/table-equal.js';

const COLUMNS = new Set(['price', 'size', 'sym']);
const check = (tree: unknown): ReturnType<typeof checkTree> => checkTree(tree, COLUMNS, 'agg');

/** The message checkTree throws for a tree, or '' when it throws none. */
function messageOf(tree: unknown): string {
  try {
    check(tree);
    return '';
  } catch (e) {
    expect(e).toBeInstanceOf(TickscopeError);
    expect((e as TickscopeError).kind).toBe('badValue');
    return (e as Error).message;
  }
}

describe('checkTree: leaves', () => {
  it('reads columns, i, numbers, numeric strings and the two null literals', () => {
    expect(check('price')).toEqual({ k: 'col', name: 'price' });
    expect(check('i')).toEqual({ k: 'index' });
    expect(check(2.5)).toEqual({ k: 'lit', value: 2.5, type: 'float' });
    expect(check('-3')).toEqual({ k: 'lit', value: -3, type: 'float' });
    expect(check('0n')).toEqual({ k: 'lit', value: NaN, type: 'float' });
    expect(check('0N')).toEqual({ k: 'lit', value: NaN, type: 'long' });
    expect(check(['max', 'price'])).toEqual({ k: 'agg', op: 'max', args: [{ k: 'col', name: 'price' }] });
    expect(check(['count', ['distinct', 'sym']])).toEqual({ k: 'agg', op: 'count', args: [{ k: 'distinct', arg: { k: 'col', name: 'sym' } }] });
    expect(check(['deltas', 'price'])).toEqual({ k: 'ordered', op: 'deltas', args: [{ k: 'col', name: 'price' }] });
    expect(check(['?', 'size', 1, '0n'])).toEqual({
      k: 'elem',
      op: '?',
      args: [
        { k: 'col', name: 'size' },
        { k: 'lit', value: 1, type: 'float' },
        { k: 'lit', value: NaN, type: 'float' },
      ],
    });
  });

  it('names an unknown column, listing the columns and the other leaves', () => {
    expect(messageOf(['max', 'prce'])).toBe(
      'agg: ["max","prce"] names "prce", which is not a column; expected a column (price, size, sym), a number, "0n" or "0N" (nulls), i, or a tree',
    );
    // the whole tree is named, not only the subtree holding the bad leaf
    expect(messageOf(['%', ['sum', 'price'], ['sum', 'volume']])).toBe(
      'agg: ["%",["sum","price"],["sum","volume"]] names "volume", which is not a column; expected a column (price, size, sym), a number, "0n" or "0N" (nulls), i, or a tree',
    );
    expect(messageOf(['max', ''])).toContain('names "", which is not a column');
    expect(messageOf(['max', ' '])).toContain('names " ", which is not a column');
  });

  it('refuses a literal that is not finite', () => {
    expect(messageOf(['max', Infinity])).toBe('agg: ["max",null] has the literal Infinity; expected a finite number');
    expect(messageOf(NaN)).toBe('agg: null has the literal NaN; expected a finite number');
  });
});

describe('checkTree: operators', () => {
  it('names an unknown operator and lists every operator of the registry in order', () => {
    expect(messageOf(['mean', 'price'])).toBe(
      'agg: ["mean","price"] has operator "mean"; expected one of first last min max sum avg med count dev sdev var svar wavg wsum + - * % / neg abs sqrt exp log floor ceiling signum = <> < > <= >= & | ? prev next deltas ratios sums fills distinct',
    );
    expect(messageOf(['+', ['sum', 'price'], ['MAX', 'size']])).toContain('agg: ["+",["sum","price"],["MAX","size"]] has operator "MAX"; expected one of first last');
  });

  it('names the operator and both counts when the arity is wrong', () => {
    expect(messageOf(['max', 'price', 'size'])).toBe('agg: ["max","price","size"] has max with 2 arguments; expected max with 1');
    expect(messageOf(['wavg', 'size'])).toBe('agg: ["wavg","size"] has wavg with 1 argument; expected wavg with 2');
    expect(messageOf(['count'])).toBe('agg: ["count"] has count with 0 arguments; expected count with 1');
    expect(messageOf(['?', 'size', 1])).toBe('agg: ["?","size",1] has ? with 2 arguments; expected ? with 3');
    expect(messageOf(['neg', 'price', 'size'])).toBe('agg: ["neg","price","size"] has neg with 2 arguments; expected neg with 1');
    expect(messageOf(['prev'])).toBe('agg: ["prev"] has prev with 0 arguments; expected prev with 1');
    expect(messageOf(['sum', ['distinct', 'price', 'size']])).toBe('agg: ["sum",["distinct","price","size"]] has distinct with 2 arguments; expected distinct with 1');
  });

  it('refuses what is not a tree', () => {
    expect(messageOf([])).toBe('agg: [] has [], which is not a tree; expected [operator, argument, ...] such as ["max","price"]');
    expect(messageOf([1, 'price'])).toBe('agg: [1,"price"] has [1,"price"], which is not a tree; expected [operator, argument, ...] such as ["max","price"]');
    expect(messageOf({ max: 'price' })).toBe('agg: {"max":"price"} has {"max":"price"}, which is not a tree; expected [operator, argument, ...] such as ["max","price"]');
    expect(messageOf(['sum', null])).toBe('agg: ["sum",null] has null, which is not a tree; expected [operator, argument, ...] such as ["max","price"]');
  });

  it('names the argument it was given', () => {
    expect(() => checkTree(['max', 'nope'], COLUMNS, 'analytics.hi')).toThrow(/^analytics\.hi: \["max","nope"\] names "nope"/);
  });
});

describe('what a checked tree reads and needs', () => {
  // one row per tree: its columns, whether moving windows can combine it, whether row order matters
  const trees: unknown[] = [
    ['max', 'price'],
    ['wavg', 'size', 'price'],
    ['%', ['sum', ['*', 'price', 'size']], ['sum', 'size']],
    ['count', 'i'],
    ['med', 'price'],
    ['count', ['distinct', 'sym']],
    ['sum', ['deltas', 'price']],
    ['max', ['-', 'price', ['avg', 'price']]],
    ['first', 'price'],
    ['-', ['last', 'price'], ['first', 'price']],
    ['sum', ['?', ['>', 'size', 0], 'price', '0n']],
    ['count', ['distinct', ['last', 'sym']]],
  ];
  it('lists the columns, and tells combinable and order-sensitive trees apart', () => {
    const got = tableFromRows(
      { tree: 'string', columns: 'string', combinable: 'boolean', ordered: 'boolean' },
      trees.map((t) => {
        const n = check(t);
        return [JSON.stringify(t), [...treeColumns(n)].sort().join(','), combinable(n), orderSensitive(n)];
      }),
    );
    const want = tableFromRows({ tree: 'string', columns: 'string', combinable: 'boolean', ordered: 'boolean' }, [
      ['["max","price"]', 'price', true, false],
      ['["wavg","size","price"]', 'price,size', true, false],
      ['["%",["sum",["*","price","size"]],["sum","size"]]', 'price,size', true, false],
      ['["count","i"]', '', true, false],
      // med needs every value of its window: it does not combine from partial states
      ['["med","price"]', 'price', false, false],
      ['["count",["distinct","sym"]]', 'sym', false, false],
      ['["sum",["deltas","price"]]', 'price', false, true],
      // an aggregate inside an aggregate needs the whole group first
      ['["max",["-","price",["avg","price"]]]', 'price', false, false],
      ['["first","price"]', 'price', true, true],
      ['["-",["last","price"],["first","price"]]', 'price', true, true],
      ['["sum",["?",[">","size",0],"price","0n"]]', 'price,size', true, false],
      ['["count",["distinct",["last","sym"]]]', 'sym', false, true],
    ]);
    expectTableEqual(got, want);
  });
});
