/**
 * Argument values for the fuzzer, by the registry's argument types: plausible ones (a request that
 * should succeed) and wrong ones (one thing wrong: the wrong type, a value just out of range, another
 * encoding, a near miss of a name). Shared by the REST and the q IPC cases.
 */
import type { ArgSpec, OperationSpec } from '../engine/registry/types.js';
import type { Rand, TableInfo, World } from './fuzz-world.js';

/** The table an operation's plausible request reads. */
export function tableFor(op: OperationSpec): string {
  return op.name === 'generateOrderAnalytics' ? 'Order' : op.name === 'getOrderAnalyticSummary' ? 'OrderAnalytics' : 'Trade';
}

const cols = (t: TableInfo, types: readonly string[]): string[] => t.columns.filter((c) => types.includes(c.type)).map((c) => c.name);

/** A value of the argument that should be accepted for this table (the registry's example when nothing better is known). */
export function plausibleValue(arg: ArgSpec, op: OperationSpec, t: TableInfo, w: World, r: Rand): unknown {
  const numeric = cols(t, ['float', 'long', 'int']);
  const syms = cols(t, ['symbol']);
  switch (arg.name) {
    case 'table':
      return t.name;
    case 'startTS':
      return op.name === 'getTicks' ? `${w.day}D14:${String(30 + r.int(10))}` : w.day;
    case 'endTS':
      return op.name === 'getTicks' ? `${w.day}D14:${String(41 + r.int(10))}` : w.nextDay;
    case 'dt':
      return w.day;
    case 'columns':
      return r.some(t.columns.map((c) => c.name), 1 + r.int(3));
    case 'idList':
      return r.some(w.instruments, 1 + r.int(2));
    case 'idCol':
      return 'instrumentID';
    case 'filter':
      return numeric.length ? [['>', r.pick(numeric), '0']] : [];
    case 'sortCols':
      return ['desc', r.pick(t.columns).name];
    case 'groupBy':
      return syms.length ? r.some(syms, 1) : [];
    case 'analytics':
      return t.analytics.length ? r.some(t.analytics, 2) : arg.example;
    case 'agg':
      return numeric.length ? { hi: ['max', r.pick(numeric)] } : arg.example;
    case 'filterRule':
      return w.filterRules.length ? r.pick(w.filterRules) : arg.example;
    case 'summaryFunctions':
      return w.summaryFunctions.length ? r.some(w.summaryFunctions, 2) : arg.example;
    case 'scope':
      return { assembly: w.assembly };
    case 'timeCol':
      return r.pick(cols(t, ['timestamp']).concat(['eventTimestamp']));
    case 'refFilter':
      return { Instrument: [['like', 'instrumentID', `${w.instruments[0]!.slice(0, 1)}*`]] };
    case 'orderbook':
      return undefined; // needs the orderbook tables: left out of plausible requests
    case 'instrumentBatchSz':
      return String(1 + r.int(3));
    case 'granularity':
      return String(1 + r.int(10));
    case 'movingWindowSize':
      return String(2 + r.int(5));
    default:
      return arg.allowed ? r.pick(arg.allowed) : arg.example;
  }
}

/** A well-formed request of the operation: the base window and a few plausible extra arguments. */
export function plausibleArgs(op: OperationSpec, w: World, r: Rand, extra = r.int(3)): Record<string, unknown> {
  const t = w.tables.get(tableFor(op))!;
  const base: Record<string, unknown> =
    op.name === 'generateOrderAnalytics'
      ? { table: 'Order', dt: w.day, regenExistingIDs: '1b', idList: [r.pick(w.instruments)] }
      : op.name === 'getOrderAnalyticSummary'
        ? { table: t.name, startTS: w.day, endTS: w.nextDay, groupBy: ['algoStrategy'] }
        : op.name === 'getStats'
          ? { table: t.name, startTS: w.day, endTS: w.nextDay, idList: [r.pick(w.instruments)], granularity: 5, granularityUnit: 'minute', analytics: ['vwap'] }
          : { table: t.name, startTS: `${w.day}D14:30`, endTS: `${w.day}D14:35`, idList: [r.pick(w.instruments)], columns: ['price', 'volume'] };
  const optional = op.args.filter((a) => !(a.name in base) && a.name !== 'orderbook' && a.name !== 'dt' && a.name !== 'startTS' && a.name !== 'endTS');
  for (const a of r.some(optional, extra)) {
    const v = plausibleValue(a, op, t, w, r);
    if (v !== undefined) base[a.name] = v;
  }
  return base;
}

/** Values wrong for any argument: types, sizes, characters, prototype names. */
export const WRONG_ANY: readonly unknown[] = [
  42, -1, 1.5, 1e308, -1e308, 5e-324, true, false, null, '', ' ', 'x'.repeat(5000), '\u0000', '\ud800', '\ud83d\ude00', '[', '{}', '`', '``',
  [], [1, 'a', null], [[[]]], {}, { a: 1 }, { '': [] }, JSON.parse('{"__proto__": {"x": 1}}') as unknown, ['desc'], [['like', 'price']], 'NaN', 'Infinity', '-0Wp', '0N', '1b', 'AAPL',
  Array.from({ length: 3000 }, (_, k) => `S${k}`), 'a\nb', '%s%s%n', '../../etc/passwd', '\\', '"', 'constructor', '__proto__', 'toString',
];

/** Values one step wrong for an argument type (near misses and other encodings). */
export function wrongValue(arg: ArgSpec, t: TableInfo, w: World, r: Rand): unknown {
  if (r.chance(0.3)) return r.pick(WRONG_ANY);
  const col = r.pick(t.columns).name;
  const near = (s: string): string => r.pick([s.toUpperCase(), s.slice(0, -1), `${s} `, ` ${s}`, `${s}x`, `\`${s}`, s.replace(/^./, (c) => c.toUpperCase()), `${s}\u0000`]);
  switch (arg.type) {
    case 'symbol':
      return r.pick([near(arg.allowed ? r.pick(arg.allowed) : arg.name === 'table' ? t.name : col), 7, ['a', 'b'], { x: 'y' }, 'x'.repeat(300), '', 'Europe/Nowhere', 'UTC+5', 'local']);
    case 'symbols':
      return r.pick([near(col), [near(col)], [1, 2], [['a']], [''], [null], `\`${col}\`${col}`, `${col},${col}`, [col, col], Array.from({ length: 2000 }, () => col), w.instruments.join(' ')]);
    case 'timestamp':
      return r.pick([`${w.day}D25:00`, '2024.02.30', '2024.13.01', `${w.day.replace(/\./g, '-')}T14:30:00Z`, `${w.day}D14:30:00.0000000001`, 1709735400000, -1, 1e20, '0Wp', '-0Wp', '0Np', '', 'today', `${w.day}D14:30+05:00`, '99999.01.01', `${w.day}T`, '2024.03', 'D14:30']);
    case 'date':
      return r.pick(['2024.02.30', '2024.13.01', w.day.replace(/\./g, '-'), `${w.day}D14:30`, 20240306, '', '0Nd', '0Wd', '1999.12.31', '10000.01.01']);
    case 'timespanPair':
      return r.pick([['14:30'], ['25:00', '10:00'], '14:30', [1, 2], ['14:30', '15:00', '16:00'], ['14:30', null], ['-01:00', '02:00'], ['0D14:30', '0D15:00'], ['14:30:00.0000000001', '15:00']]);
    case 'integer':
      return r.pick(['5.5', -1, 0, 2 ** 53, 1e308, '0N', 'NaN', '1e3', 5.5, '', '0x10', '-0', '9223372036854775808', [5], '5j', '5i']);
    case 'boolean':
      return r.pick(['yes', 2, '2b', 'true', '1', 1, 0, null, '0b1', ['1b'], 'TRUE']);
    case 'booleanOrSymbol':
      return r.pick(['NOPE', 5, [], '2b', '', { x: 1 }, ['NYSE', 'LSE']]);
    case 'filter':
      return r.pick([[['>', col]], [['nope', col, '1']], [['>', 'nope', '1']], `${col}<`, `${col}<100;;`, [[['>']]], [['in', col, 'x'.repeat(1000)]], nested(20), nested(70), [['like', col, '*']], [['within', col, ['1']]], [['>', col, ['a', 'b']]], 'price<100;volume>=', [null], [['=', col, null]], [['>', col, '1', 'extra']]]);
    case 'sortCols':
      return r.pick([['desc'], ['up', col], ['desc', 'nope'], [1, 2], 'desc', [['desc', col]], ['asc', col, 'desc']]);
    case 'dict':
      return r.pick([{ assembly: 'nope' }, { x: 1 }, 'demo', [], { assembly: 5 }, { assembly: [w.assembly] }]);
    case 'agg':
      return r.pick([{ hi: ['max'] }, { hi: ['nope', col] }, { '': ['max', col] }, [['a', 'max']], { hi: ['max', col, 'extra'] }, { hi: ['+', col, nested(70)] }, { hi: 'max price' }, [['hi', 'max', 'nope']], { hi: ['wavg', col] }]);
    case 'refFilter':
      return r.pick([{ Nope: [] }, { Instrument: 'x' }, '(', { Instrument: [['like']] }, { Instrument: [['like', 'nope', 'x']] }, [['like', 'sector', 'x']]]);
  }
}

/** A list nested this deep around a triple: [[[... ["=", "price", "1"] ...]]]. */
export function nested(depth: number): unknown {
  let x: unknown = ['=', 'price', '1'];
  for (let k = 0; k < depth; k++) x = [x];
  return x;
}

/** A name that is not an argument of the operation (a near miss, or a hostile key). */
export function unknownArgName(op: OperationSpec, r: Rand): string {
  const a = r.pick(op.args).name;
  return r.pick([a.toLowerCase(), `${a}s`, a.slice(1), `_${a}`, '__proto__', 'constructor', 'hasOwnProperty', '', ' ', 'x'.repeat(300), 'args', 'table ']);
}
