/** Parse trees in the agg builder: kinds of arguments, local checks with their places, and edits. */
import { describe, expect, it } from 'vitest';
import { OPS } from '../../renderer/src/form/agg-ops.js';
import { argAt, argKind, autoName, isBlankTree, normalizeArg, setArgAt, type TreeArg, treeIssues, type TreeSchema, withOp } from '../../renderer/src/form/agg-tree.js';
import { AGGREGATES, DISTINCT, ELEMENTWISE, ORDERED } from '../../engine/ops/stats/tree.js';
import { AGG_OPERATORS } from '../../engine/registry/agg-operators.js';

const TRADE: TreeSchema = {
  table: 'Trade',
  columns: new Map([
    ['eventTimestamp', 'timestamp'],
    ['instrumentID', 'symbol'],
    ['price', 'float'],
    ['volume', 'long'],
  ]),
};

const issues = (t: TreeArg): Array<[string, string]> => treeIssues(t, TRADE).map((i) => [i.path.join('.'), i.text]);

describe('operators', () => {
  it('are the one table the engine checks trees by, with its arities', () => {
    expect(OPS).toBe(AGG_OPERATORS);
    const engine = { ...AGGREGATES, ...ELEMENTWISE, ...ORDERED, [DISTINCT]: 1 } as Record<string, number>;
    expect(Object.fromEntries(OPS.map((o) => [o.op, o.arity]))).toEqual(engine);
    expect(Object.keys(engine)).toHaveLength(AGG_OPERATORS.length);
  });
});

describe('tree arguments', () => {
  it('are columns, numbers, nulls, the row index or trees', () => {
    expect(['price', '2', '-0.5', '1e6', '0n', '0N', 'i', ['max', 'price'], ''].map((a) => argKind(a))).toEqual(['column', 'number', 'number', 'number', 'null', 'null', 'index', 'tree', 'column']);
  });

  it('read from JSON with numbers as REST strings; anything else is not a tree', () => {
    expect(normalizeArg(['%', ['+', 'price', 2], 4])).toEqual(['%', ['+', 'price', '2'], '4']);
    expect(normalizeArg(['max', { column: 'price' }])).toBeNull();
    expect(normalizeArg(['max', null])).toBeNull();
  });
});

describe('local checks', () => {
  it('accept the trees SPEC 5.1 describes', () => {
    const good: TreeArg[] = [
      ['max', 'price'],
      ['wavg', 'volume', 'price'],
      ['count', 'i'],
      ['count', ['distinct', 'instrumentID']],
      ['sum', ['*', 'price', 'volume']],
      ['%', ['+', ['+', ['first', 'price'], ['max', 'price']], ['+', ['min', 'price'], ['last', 'price']]], '4'],
      ['last', ['sums', 'volume']],
      ['max', 'eventTimestamp'],
      ['first', 'instrumentID'],
      ['-', ['last', 'eventTimestamp'], ['first', 'eventTimestamp']],
      ['avg', ['?', ['>', 'volume', '0'], ['%', 'price', 'volume'], '0n']],
      ['sum', ['?', ['>', 'price', '1'], 'volume', '0N']],
    ];
    for (const t of good) expect(issues(t), JSON.stringify(t)).toEqual([]);
  });

  it('name an unknown operator where it is', () => {
    expect(issues(['maximum', 'price'])).toEqual([['', '"maximum" is not an operator']]);
    expect(issues(['sum', ['times', 'price', 'volume']])).toEqual([['1', '"times" is not an operator']]);
  });

  it('name a wrong arity with the operator’s arguments', () => {
    expect(issues(['max', 'price', 'volume'])).toEqual([['', 'max takes 1 argument, not 2']]);
    expect(issues(['wavg', 'price'])).toEqual([['', 'wavg takes 2 arguments (weights, values), not 1']]);
    expect(issues(['sum', ['+', 'price']])).toEqual([['1', '+ takes 2 arguments, not 1']]);
    expect(issues(['neg'])[0]).toEqual(['', 'neg takes 1 argument, not 0']);
  });

  it('point at an empty argument and an unknown column', () => {
    expect(issues(['wavg', 'volume', ''])).toEqual([['2', 'choose a column, a number or i']]);
    expect(issues(['max', ['abs', 'pirce']])).toEqual([['1.1', 'Trade has no column "pirce"']]);
    // Without a schema columns are not judged.
    expect(treeIssues(['max', 'pirce'])).toEqual([]);
  });

  it('say when a tree does not reduce to one value per group', () => {
    const msg = 'does not reduce to one value per group: end in an aggregate such as ["sum", …]';
    expect(issues(['*', 'price', 'volume'])).toEqual([['', msg]]);
    expect(issues(['deltas', 'price'])).toEqual([['', msg]]);
    expect(issues(['distinct', 'price'])).toEqual([['', msg]]);
    expect(issues('price')).toEqual([['', 'not a tree: expected [operator, argument, ...] such as ["max","price"]']]);
  });

  it('flag numbers-only aggregates of symbols; ordered operators may run over per-group values', () => {
    expect(issues(['sum', 'instrumentID'])).toEqual([['1', 'sum needs numbers; instrumentID is symbol']]);
    expect(issues(['sum', 'eventTimestamp'])).toEqual([['1', 'sum needs numbers; eventTimestamp is timestamp']]);
    expect(issues(['last', ['deltas', ['max', 'price']]])).toEqual([]);
  });
});

describe('edits', () => {
  const tree: TreeArg = ['sum', ['*', 'price', 'volume']];

  it('read and replace an argument by its path, leaving the original alone', () => {
    expect(argAt(tree, [1, 2])).toBe('volume');
    expect(argAt(tree, [1, 5])).toBeUndefined();
    expect(setArgAt(tree, [1, 2], ['abs', 'volume'])).toEqual(['sum', ['*', 'price', ['abs', 'volume']]]);
    expect(tree).toEqual(['sum', ['*', 'price', 'volume']]);
  });

  it('change the operator keeping arguments up to its arity', () => {
    expect(withOp(['max', 'price'], 'wavg')).toEqual(['wavg', 'price', '']);
    expect(withOp(['wavg', 'volume', 'price'], 'last')).toEqual(['last', 'volume']);
  });

  it('name plain aggregates <op><Column> and know blank trees', () => {
    expect([autoName(['max', 'price']), autoName(['count', 'i']), autoName(['max', '']), autoName(tree)]).toEqual(['maxPrice', null, null, null]);
    expect([isBlankTree(['last', '']), isBlankTree(['+', '', ['max', '']]), isBlankTree(['last', 'price'])]).toEqual([true, true, false]);
  });
});
