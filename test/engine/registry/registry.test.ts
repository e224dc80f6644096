/**
 * The conformance test: walks every registered operation and argument and checks that it decodes
 * its example, rejects a wrong value naming itself, is documented, and appears in the app's form.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { Engine } from '../../../engine/engine.js';
import { callOf } from '../../../engine/gateway/qipc/call.js';
import { MSG_SYNC, QWriter } from '../../../engine/q/codec.js';
import { decodeMessage } from '../../../engine/q/decode.js';
import { runStats } from '../../../engine/ops/get-stats.js';
import { queryBase } from '../../../engine/ops/select/query.js';
import { GETSTATS_ARGS } from '../../../engine/operations/get-stats.js';
import { GETTICKS_ARGS } from '../../../engine/operations/get-ticks.js';
import { type ArgsOf, decodeArgs } from '../../../engine/registry/decode.js';
import { argumentsMarkdown } from '../../../engine/operations/docs.js';
import { OPERATIONS, operationByName, operationByRestPath } from '../../../engine/operations/index.js';
import { type Operation, specOf } from '../../../engine/operations/operation.js';
import { ALL_ARGS, arg } from '../../../engine/registry/args.js';
import { Registry } from '../../../engine/registry/register.js';
import type { ArgSpec, OperationSpec } from '../../../engine/registry/types.js';
import { ArgFormView } from '../../../renderer/src/components/arg-form.js';
import { csv, makeEngine } from '../../helpers/db.js';

const DOC = 'docs/arguments.md';

/** A value of the wrong shape for each argument type. */
const WRONG: Record<string, unknown> = {
  symbol: 42,
  symbols: [1, 2],
  timestamp: 'not a time',
  date: '2024.13.45',
  timespanPair: ['09:30'],
  integer: 'many',
  boolean: 'perhaps',
  filter: 17,
  sortCols: ['sideways', 'price'],
  dict: 'assembly',
  booleanOrSymbol: 3,
  agg: 42,
  refFilter: 42,
};

function decodeError(op: string, args: Record<string, unknown>): TickscopeError {
  try {
    decodeArgs(operationByName(op), args);
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error(`no error for ${JSON.stringify(args)}`);
}

describe('registry conformance', () => {
  const noop = (): void => {};
  const form = (op: (typeof OPERATIONS)[number]): string =>
    renderToString(
      createElement(ArgFormView, {
        op,
        values: {},
        tables: [],
        ids: [],
        assemblies: ['demo'],
        assembly: 'demo',
        filterRules: [],
        formError: null,
        setField: noop,
        setAssembly: noop,
        onSubmit: noop,
      }),
    );

  for (const op of OPERATIONS) {
    describe(op.name, () => {
      it('resolves every name and REST path to the operation', () => {
        for (const n of op.ipcNames) expect(operationByName(n).name).toBe(op.name);
        for (const p of op.restPaths) expect(operationByRestPath(p)?.name).toBe(op.name);
      });

      const html = form(op);
      for (const arg of op.args) {
        it(`${arg.name}: decodes its example, rejects a wrong value, is documented and in the form`, () => {
          const base: Record<string, unknown> = arg.required || arg.name === 'table' ? {} : { table: 'Trade' };
          // with the arguments it needs, at their examples
          for (const n of arg.requires?.args ?? []) base[n] = op.args.find((a) => a.name === n)!.example;
          const decoded = decodeArgs(op, { ...base, [arg.name]: arg.example });
          expect(decoded.names()).toContain(arg.name);
          const wrong = WRONG[arg.type];
          if (wrong !== undefined) {
            const e = decodeError(op.ipcNames[0]!, { ...base, [arg.name]: wrong });
            expect(e.message.startsWith(`${arg.name}: `), e.message).toBe(true);
            expect([4, 5, 10, 11]).toContain(e.ac);
          }
          expect(arg.doc.length).toBeGreaterThan(10);
          expect(html).toContain(`data-testid="arg-${arg.name}"`);
          expect(html).toContain(arg.doc.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').slice(0, 30));
        });
      }
    });
  }

  it('rejects unknown operations and arguments, naming them', () => {
    expect(() => operationByName('getTick')).toThrow(/operation: "getTick" is not an operation; expected one of .fsi.getTicks/);
    const e = decodeError('getTicks', { table: 'Trade', colums: ['price'] });
    expect([e.ac, e.message.split(';')[0]]).toEqual([2, 'colums: is not an argument of getTicks']);
  });

  it('registers an operation only when its declaration agrees with itself and with the others', () => {
    const getStats = operationByName('getStats');
    const refused = (change: Partial<OperationSpec>): string => {
      const r = new Registry<OperationSpec>();
      r.register(operationByName('getTicks'));
      try {
        r.register({ ...getStats, ...change });
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refused({})).toBe('accepted');
    expect(refused({ ipcNames: ['getTicks'] })).toBe('operation getStats: the name getTicks is taken by getTicks');
    expect(refused({ restPaths: ['/servicegateway/fsi/getTicks'] })).toBe('operation getStats: the REST path /servicegateway/fsi/getTicks is taken by getTicks');
    const arg = (name: string): ArgSpec => getStats.args.find((a) => a.name === name)!;
    expect(refused({ args: [...getStats.args, arg('table')] })).toBe('operation getStats: argument table is declared twice');
    // an argument of its own is accepted; one name is one type everywhere
    expect(refused({ args: [...getStats.args, { ...arg('table'), name: 'bucketOffset' }] })).toBe('accepted');
    expect(refused({ args: getStats.args.map((a) => (a.name === 'granularity' ? { ...a, type: 'symbol' as const } : a)) })).toBe(
      'operation getStats: argument granularity is symbol here but integer in registry/args.ts',
    );
    expect(refused({ args: getStats.args.filter((a) => a.name !== 'granularityUnit') })).toBe('operation getStats: argument movingWindowSize requires granularityUnit, which it does not declare');
    expect(refused({ args: getStats.args.map((a) => (a.name === 'fill' ? { ...a, excludes: { args: ['dt'], why: '(never)' } } : a)) })).toBe('operation getStats: argument fill excludes dt, which it does not declare');
  });

  it("leaves no code outside the operations' modules and kernels testing or reading an operation's or an argument's name", () => {
    // Operation names: no literal at all. Argument names: no read or test by a name written out
    // (indexing, get/must/has/value, comparing, setField); code that needs an argument reads it
    // through its declaration (\`ARG.startTS.name\`, \`args.get(scope.name)\`). The operations' modules
    // and their kernels (engine/ops, engine/orders), whose reads are typed by the declaration
    // (ArgsOf), may name their arguments.
    const q = `['"\`]`;
    const ops = OPERATIONS.map((o) => o.name).join('|');
    const args = ALL_ARGS.map((a) => a.name).join('|');
    // a comparison with a widget, type, kind or shape is not one with a name; `x['name']` indexes, `['name']` is a list
    const compared = `(?<!\\.(widget|type|kind|shape)\\s*)`;
    const patterns = [
      new RegExp(`${q}(\\.\\w+)*\\.?(${ops})${q}`), // any of its names: getTicks, .fsi.getTicks
      new RegExp(`(?<=[\\w)\\]]|\\?\\.)\\[\\s*${q}(${args})${q}\\s*\\]`),
      new RegExp(`\\.(get|must|has|value|setField)\\(\\s*${q}(${args})${q}`),
      new RegExp(`${compared}[=!]==\\s*${q}(${args})${q}`),
      new RegExp(`${q}(${args})${q}\\s*[=!]==(?!\\s*\\w+\\.(widget|type|kind|shape)\\b)`),
    ];
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        else if (/\.tsx?$/.test(e.name)) {
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              const code = line.trim();
              // a key that only shares an argument's name (a JWT claim, a config.json key) says so on its line
              if (code.startsWith('*') || code.startsWith('/*') || code.startsWith('//') || code.includes('// not an argument')) return;
              if (patterns.some((p) => p.test(line))) offenders.push(`${path}:${i + 1}: ${code}`);
            });
        }
      }
    };
    walk('engine');
    walk(join('renderer', 'src'));
    const own = ['operations', 'ops', 'orders', join('registry', 'args.ts'), join('registry', 'types.ts')].map((p) => join('engine', p));
    expect(offenders.filter((o) => !own.some((p) => o.startsWith(p)))).toEqual([]);
  });

  it('takes a new argument from its declaration alone: decoded, checked, in the form and in the docs', () => {
    // a throwaway argument added to a copy of getStats, in a registry of its own
    const bucketOffset: ArgSpec = {
      name: 'bucketOffset', type: 'integer', required: false, default: 0, widget: 'number', example: '5',
      range: { min: 0, max: 59, problem: 'is out of range', expected: 'an integer from 0 to 59' },
      requires: { args: ['granularityUnit'], why: '(it shifts the buckets)' },
      doc: 'Shifts the start of every bucket by this many units.',
    };
    const getStats = operationByName('getStats');
    const copy: OperationSpec = { ...specOf(getStats), args: [...getStats.args, bucketOffset] };
    const registry = new Registry<OperationSpec>();
    registry.register(copy);
    // its name is now an integer's: another operation's bucketOffset of another type is refused
    const other = { ...specOf(operationByName('getTicks')), args: [...operationByName('getTicks').args, { ...bucketOffset, type: 'symbol' as const }] };
    expect(() => registry.register(other)).toThrow('operation getTicks: argument bucketOffset is symbol here but integer in getStats');
    // decoded, with its default when not given
    expect(decodeArgs(copy, { table: 'Trade', granularityUnit: 'minute', bucketOffset: '5' }).value('bucketOffset')).toBe(5);
    expect(decodeArgs(copy, { table: 'Trade', granularityUnit: 'minute' }).value('bucketOffset')).toBe(0);
    // checked: its range and what it needs
    const err = (args: Record<string, unknown>): string => {
      try {
        decodeArgs(copy, { table: 'Trade', ...args });
      } catch (e) {
        return `${(e as TickscopeError).ac} ${(e as Error).message}`;
      }
      return 'accepted';
    };
    expect(err({ granularityUnit: 'minute', bucketOffset: 60 })).toBe('4 bucketOffset: 60 is out of range; expected an integer from 0 to 59');
    expect(err({ bucketOffset: 5 })).toBe('15 bucketOffset: needs granularityUnit (it shifts the buckets)');
    // in the form, its tooltip saying its default, range and needs
    const html = form(copy as (typeof OPERATIONS)[number]);
    expect(html).toContain('data-testid="arg-bucketOffset"');
    expect(html).toContain('bucketOffset: Shifts the start of every bucket by this many units. Default 0. From 0 to 59. Needs granularityUnit (it shifts the buckets).');
    // in the generated reference
    expect(argumentsMarkdown([copy])).toContain(
      '| `bucketOffset` | integer | no | `0` | Shifts the start of every bucket by this many units. From 0 to 59. Needs `granularityUnit` (it shifts the buckets). | `"5"` |',
    );
  });

  it('dispatches a new argument from its declaration alone: a REST body and a q message reach its operation decoded', () => {
    // the copy of getStats runs as getStats does, and shows what its bucketOffset arrived as
    const bucketOffset: ArgSpec = {
      name: 'bucketOffset', type: 'integer', required: false, default: 0, widget: 'number', example: '5',
      range: { min: 0, max: 59, problem: 'is out of range', expected: 'an integer from 0 to 59' },
      doc: 'Shifts the start of every bucket by this many units.',
    };
    const seen: unknown[] = [];
    const getStats = operationByName('getStats');
    const copy: Operation = { ...getStats, args: [...getStats.args, bucketOffset], run: (db, args) => (seen.push(args.value('bucketOffset')), getStats.run(db, args)) };
    const registry = new Registry<Operation>();
    registry.register(copy);
    const trades = csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [['2024.03.06D14:30:01', 'AAPL', '170.5', '100'], ['2024.03.06D14:31:02', 'AAPL', '171', '300']]);
    const engine = new Engine(makeEngine({ Trade: trades }).databases, registry);
    const window = { startTS: '2024.03.06D14:30', endTS: '2024.03.06D14:32' };
    // REST: the path names the operation, the JSON body's strings are decoded as the declaration says
    const rest = registry.byRestPath('/servicegateway/fsi/getStats')!;
    const body = JSON.parse(JSON.stringify({ table: 'Trade', ...window, granularityUnit: 'minute', bucketOffset: '7', agg: { n: ['count', 'price'] } })) as unknown;
    expect(engine.call(rest.ipcNames[0]!, body).table.length).toBe(2);
    // q IPC: (`.fsi.getStats; dictionary) with bucketOffset a q long, as a q client sends it
    const w = QWriter.forMessage();
    w.vector(0, 2);
    w.symbol('.fsi.getStats');
    w.u8(99);
    w.vector(11, 6);
    for (const key of ['table', 'startTS', 'endTS', 'granularityUnit', 'bucketOffset', 'analytics']) w.symText(key);
    w.vector(0, 6);
    w.symbol('Trade');
    w.chars(window.startTS);
    w.chars(window.endTS);
    w.symbol('minute');
    w.long(9n);
    w.vector(11, 1);
    w.symText('vwap');
    const call = callOf(decodeMessage(new Uint8Array(w.message(MSG_SYNC)).subarray(8)));
    expect(engine.call(call.op, call.args).table.length).toBe(2);
    expect(seen).toEqual([7, 9]);
    // and checked on either path before the operation runs
    expect(() => engine.call(rest.ipcNames[0]!, { table: 'Trade', ...window, granularityUnit: 'minute', bucketOffset: '60', agg: { n: ['count', 'price'] } })).toThrow('bucketOffset: 60 is out of range; expected an integer from 0 to 59');
    expect(seen).toHaveLength(2);
    // the built-in registry does not know it
    expect(() => makeEngine({ Trade: trades }).call('getStats', { table: 'Trade', bucketOffset: 5 })).toThrow(/^bucketOffset: is not an argument of getStats/);
  });

  it("types an operation's reads by its declaration (ArgsOf)", () => {
    const args = decodeArgs(operationByName('getStats'), { table: 'Trade', granularity: '5' }) as ArgsOf<typeof GETSTATS_ARGS>;
    const granularity: number = args.must('granularity');
    expect(granularity).toBe(5);
    // @ts-expect-error getStats takes no columns: reading it does not compile
    expect(args.get('columns')).toBeUndefined();
    // an argument of the operation's own, declared beside it, reads typed the same way
    const bucketOffset = arg({ name: 'bucketOffset', type: 'integer', required: false, default: 0, widget: 'number', example: '5', doc: 'Shifts every bucket.' });
    const own = [...GETSTATS_ARGS, bucketOffset] as const;
    const withOwn = decodeArgs({ ...specOf(operationByName('getStats')), args: own }, { table: 'Trade', bucketOffset: '3' }) as ArgsOf<typeof own>;
    const offset: number | undefined = withOwn.get('bucketOffset');
    expect(offset).toBe(3);
    // getStats's arguments pass to getTicks's selection (it reads fewer), getTicks's do not reach getStats's kernel
    const ticks = decodeArgs(operationByName('getTicks'), { table: 'Trade' }) as ArgsOf<typeof GETTICKS_ARGS>;
    const select: Parameters<typeof queryBase>[1] = args;
    // @ts-expect-error getTicks does not take groupBy, granularity...: the stats kernel cannot be given its arguments
    const stats: Parameters<typeof runStats>[1] = ticks;
    expect([select.has('table'), stats.has('table')]).toEqual([true, true]);
  });

  it('checks what the declaration states: ranges, and the arguments an argument needs', () => {
    const stats = (args: Record<string, unknown>): TickscopeError => decodeError('getStats', { table: 'Trade', ...args });
    expect([stats({ decPlaces: 16 }).ac, stats({ decPlaces: 16 }).message]).toEqual([4, 'decPlaces: 16 is out of range; expected an integer from 0 to 15']);
    expect(stats({ granularity: '0' }).message).toBe('granularity: 0 is not positive; expected an integer >= 1');
    const needs = stats({ movingWindowSize: 5 });
    expect([needs.ac, needs.message]).toEqual([15, 'movingWindowSize: needs granularityUnit (the unit of the window and of the buckets)']);
    expect(stats({ applyHolidayCalendar: 'XNYS', fill: 'forward' }).message).toBe(
      'applyHolidayCalendar: needs fill and granularityUnit (it removes holiday buckets before racking and filling); missing granularityUnit',
    );
    // what an argument excludes, when both are given (a default does not count)
    const gen = (args: Record<string, unknown>): TickscopeError => decodeError('generateOrderAnalytics', { table: 'Order', ...args });
    expect([gen({ dt: '2024.03.06', startTS: '2024.03.06', endTS: '2024.03.07' }).ac, gen({ dt: '2024.03.06', startTS: '2024.03.06', endTS: '2024.03.07' }).message]).toEqual([
      15,
      'dt: give either dt or startTS and endTS, not both (got dt and startTS and endTS)',
    ]);
    expect(decodeArgs(operationByName('generateOrderAnalytics'), { table: 'Order', dt: '2024.03.06' }).get('dt')).toBe(19788);
    // false is not given: it needs nothing
    expect(decodeArgs(operationByName('getStats'), { table: 'Trade', applyHolidayCalendar: '0b' }).has('table')).toBe(true);
    expect(decodeArgs(operationByName('getStats'), { table: 'Trade', decPlaces: 15, granularity: 1 }).get('decPlaces')).toBe(15);
  });

  it('implements every operation, validating its arguments first', () => {
    const engine = makeEngine({});
    expect(() => engine.call('getOrderAnalyticSummary', { table: 'OrderAnalytics', summaryFunctions: 42 })).toThrow(/summaryFunctions: 42 is not valid/);
    expect(() => engine.call('generateOrderAnalytics', { table: 'Order', dt: 'monday' })).toThrow(/^dt: "monday" is not a date; expected/);
  });

  it('keeps docs/arguments.md generated from the registry', () => {
    const md = argumentsMarkdown();
    if (process.env['UPDATE_DOCS']) writeFileSync(DOC, md);
    expect(readFileSync(DOC, 'utf8')).toBe(md);
  });
});
