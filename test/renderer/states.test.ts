/** The result area's states as pure functions: the fields an error names, the codes' docs, the words for requests and empty results. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorKinds } from '../../engine/core/errors.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { describeEmpty, idProblem, narrowingOf, requestLabel } from '../../renderer/src/states/describe.js';
import { errorKind, parseErrorKinds } from '../../renderer/src/states/error-kinds.js';
import { argNameOf, errorFields, fieldMessage } from '../../renderer/src/states/error-fields.js';

const getTicks = OPERATIONS.find((o) => o.name === 'getTicks')!.args.map((a) => a.name);
const generate = OPERATIONS.find((o) => o.name === 'generateOrderAnalytics')!.args.map((a) => a.name);
/** The arguments getTicks declares as narrowing its rows. */
const NARROWING = narrowingOf(OPERATIONS.find((o) => o.name === 'getTicks'));

describe('the field an error names', () => {
  it('reads the argument a message starts with, paths into it included', () => {
    expect(argNameOf('startTS: "tomorrow" is not a timestamp; expected a timestamp: 2024.01.02D09:30')).toBe('startTS');
    expect(argNameOf('scope.assembly: "x" is not mounted; expected one of demo')).toBe('scope');
    expect(argNameOf('filter[2]: ["like","price","A*"] applies like to a float column')).toBe('filter');
    expect(argNameOf('  idList : ["ZZZ"] ...')).toBe('idList');
    expect(argNameOf('startTS >= endTS')).toBeNull();
    expect(argNameOf('the query was cancelled')).toBeNull();
    expect(argNameOf('internal error: boom')).toBeNull();
    expect(argNameOf('http://host:80/x does not answer')).toBe('http');
    expect(argNameOf('std::vector: no')).toBeNull();
  });

  it('marks only arguments of the operation, with the problem without the name and the forms', () => {
    expect(errorFields('startTS: "tomorrow" is not a timestamp; expected a timestamp: 2024.01.02D09:30, 0Wp', 4, getTicks)).toEqual({ startTS: '"tomorrow" is not a timestamp' });
    expect(errorFields('columns: "pricex" is not a column of Trade; expected one of price, volume', 7, getTicks)).toEqual({ columns: '"pricex" is not a column of Trade' });
    expect(errorFields('table: is required by getTicks; Table to read.', 3, getTicks)).toEqual({ table: 'is required by getTicks; Table to read.' });
    expect(errorFields('scope.assembly: "nope" is not a mounted database; expected one of demo', 9, getTicks)).toEqual({ scope: '"nope" is not a mounted database' });
    // not a form argument: the panel says it, the form marks nothing
    expect(errorFields('internal error: boom', 99, getTicks)).toEqual({});
    expect(errorFields('resultId: "x" is not a result held here; run the query again', 13, getTicks)).toEqual({});
    expect(errorFields('dt: give either dt or startTS and endTS, not both', 15, getTicks)).toEqual({});
    expect(errorFields('dt: give either dt or startTS and endTS, not both', 15, generate)).toEqual({ dt: 'give either dt or startTS and endTS, not both' });
    // an unknown argument is exactly what the form does not have
    expect(errorFields('startTs: is not an argument of getTicks; expected one of table, startTS', 2, [...getTicks, 'startTs'])).toEqual({});
    // startTS >= endTS names both ends of the window
    expect(Object.keys(errorFields('startTS >= endTS', 23, getTicks))).toEqual(['startTS', 'endTS']);
    expect(errorFields('startTS >= endTS', 23, ['table'])).toEqual({});
    // the form's own checks name their field the same way
    expect(errorFields('filter: row 1 has no column', null, getTicks)).toEqual({ filter: 'row 1 has no column' });
  });

  it('keeps a message that is all name', () => {
    expect(fieldMessage('startTS:')).toBe('startTS:');
    expect(fieldMessage('no name here; expected x')).toBe('no name here');
  });
});

describe('the error codes of docs/errors.md', () => {
  it('lists every code the engine raises, with its kind and when it happens', () => {
    const kinds = parseErrorKinds(readFileSync('docs/errors.md', 'utf8'));
    for (const k of Object.values(ErrorKinds)) {
      expect(kinds.get(k.ac)?.kind, `ac ${k.ac}`).toBe(k.title);
      expect(kinds.get(k.ac)?.when.length, `ac ${k.ac}`).toBeGreaterThan(10);
    }
    expect(errorKind(23)?.kind).toBe('startTS >= endTS');
    expect(errorKind(4)?.when).toContain('a timestamp that is not a timestamp');
    expect(errorKind(4)?.when).not.toContain('`');
    expect(errorKind(777)).toBeUndefined();
    expect(errorKind(null)).toBeUndefined();
  });
});

describe('words for requests and empty results', () => {
  const trade = { name: 'Trade', firstDate: '2024-03-06', lastDate: '2024-03-07' };

  it('labels a request by operation, table, the window’s dates and its first identifiers', () => {
    const req = { operation: 'getTicks', args: { table: 'Trade', startTS: '2024.03.06D14:30:00', endTS: '2024.03.06D15:00:00', idList: ['AAPL'] } };
    expect(requestLabel(req)).toBe('getTicks Trade 2024-03-06 · AAPL');
    // the header's window (outputTZ wall clock), its exclusive end, dates in inputTZ
    const ny = { operation: 'getStats', args: { table: 'Trade', inputTZ: 'America/New_York', idList: ['A', 'B', 'C', 'D', 'E'] } };
    expect(requestLabel(ny, { startTS: '2024-03-06T05:00:00.000000000', endTS: '2024-03-08T05:00:00.000000000' })).toBe('getStats Trade 2024-03-06 → 2024-03-07 · A, B, C +2');
    expect(requestLabel({ operation: 'generateOrderAnalytics', args: { table: 'Order', dt: '2024.03.06' } })).toBe('generateOrderAnalytics Order 2024-03-06');
  });

  it('describes an empty result by its window in the zones used and what narrowed it', () => {
    // what narrows a window's rows is the declarations' (narrows): the old list of thirteen, getTicks' twelve and getStats' applyHolidayCalendar
    expect([...NARROWING].sort()).toEqual(['applyCanCor', 'filter', 'filterRule', 'idCol', 'idList', 'idMapping', 'orderbook', 'refFilter', 'scope', 'slice', 'temporality', 'timeCol'].sort());
    expect(narrowingOf(OPERATIONS.find((o) => o.name === 'getStats'))).toContain('applyHolidayCalendar');
    const req = { operation: 'getTicks', args: { table: 'Trade', startTS: '2024.03.06D03:00:00', endTS: '2024.03.06D03:01:00', idList: ['AAPL', 'ZZZ'], filter: [['>', 'price', 1e9]], columns: ['price'] } };
    const d = describeEmpty(req, { startTS: '2024-03-06T03:00:00.000000000', endTS: '2024-03-06T03:01:00.000000000' }, trade, ['AAPL', 'MSFT'], NARROWING);
    expect(d.window).toBe('2024.03.06D03:00:00 → 2024.03.06D03:01:00 UTC');
    expect(d.read).toBeNull();
    expect(d.filters).toEqual([
      ['idList', 'AAPL, ZZZ'],
      ['filter', '[[">","price",1000000000]]'],
    ]);
    expect(d.hints).toEqual(['ZZZ is not in Trade on any date']);

    // another output zone, and a window outside the table's dates
    const ny = { operation: 'getTicks', args: { table: 'Trade', startTS: '2025.01.02D09:30', endTS: '2025.01.02D16:00', inputTZ: 'America/New_York', outputTZ: 'UTC' } };
    const e = describeEmpty(ny, { startTS: '2025-01-02T14:30:00.000000000', endTS: '2025-01-02T21:00:00.000000000' }, trade, [], NARROWING);
    expect(e.window).toBe('2025.01.02D09:30 → 2025.01.02D16:00 America/New_York');
    expect(e.read).toBe('2025-01-02T14:30:00.000000000 → 2025-01-02T21:00:00.000000000 UTC');
    expect(e.filters).toEqual([]);
    expect(e.hints).toEqual(['Trade holds 2024-03-06 → 2024-03-07 only (UTC dates)']);

    // no window given: the one the engine read
    const all = describeEmpty({ operation: 'getTicks', args: { table: 'Trade', temporality: 'slice', slice: ['22:00', '23:00'] } }, { startTS: '2024-03-06T00:00:00.000000000', endTS: '2024-03-08T00:00:00.000000000' }, trade, [], NARROWING);
    expect(all.window).toBeNull();
    expect(all.read).toBe('2024-03-06T00:00:00.000000000 → 2024-03-08T00:00:00.000000000 UTC');
    expect(all.filters).toEqual([
      ['temporality', 'slice'],
      ['slice', '22:00, 23:00'],
    ]);
  });

  it('sends an empty OrderAnalytics window to generateOrderAnalytics when the orders are stored, else to the window', () => {
    const analytics = { name: 'OrderAnalytics', firstDate: '2024-03-06', lastDate: '2024-03-06' };
    const orders = { name: 'Order', firstDate: '2024-03-06', lastDate: '2024-03-08' };
    const req = { operation: 'getOrderAnalyticSummary', args: { table: 'OrderAnalytics', startTS: '2024.03.07D00:00:00', endTS: '2024.03.08D00:00:00' } };
    const d = describeEmpty(req, { startTS: '2024-03-07T00:00:00.000000000', endTS: '2024-03-08T00:00:00.000000000' }, analytics, [], NARROWING, orders);
    expect(d.generate).toEqual({ dt: '2024-03-07' });
    expect(d.next).toBe('OrderAnalytics rows are written by generateOrderAnalytics from the orders: run it for 2024-03-07, then run this again.');
    expect(d.next).not.toMatch(/widen/i);
    // OrderAnalytics holds the window's date: the rows are not in this part of it
    const early = { ...req, args: { ...req.args, startTS: '2024.03.06D00:00:00', endTS: '2024.03.06D00:01:00' } };
    expect(describeEmpty(early, { startTS: '2024-03-06T00:00:00.000000000', endTS: '2024-03-06T00:01:00.000000000' }, analytics, [], NARROWING, orders).generate).toBeNull();
    // a filter that may be what emptied the window: loosening it comes first
    const filtered = { ...req, args: { ...req.args, filter: [['=', 'side', 'Short']] } };
    const f = describeEmpty(filtered, { startTS: '2024-03-07T00:00:00.000000000', endTS: '2024-03-08T00:00:00.000000000' }, analytics, [], narrowingOf(OPERATIONS.find((o) => o.name === 'getOrderAnalyticSummary')), orders);
    expect(f.generate).toBeNull();
    expect(f.next).toMatch(/loosen the filters/);
    // no orders on those dates either: the window is what to change
    const late = { ...req, args: { ...req.args, startTS: '2024.03.20', endTS: '2024.03.21' } };
    const e = describeEmpty(late, { startTS: '2024-03-20T00:00:00.000000000', endTS: '2024-03-21T00:00:00.000000000' }, analytics, [], NARROWING, orders);
    expect(e.generate).toBeNull();
    expect(e.next).toMatch(/^Widen the window/);
    // other tables keep the window advice
    expect(describeEmpty({ operation: 'getTicks', args: { table: 'Trade' } }, {}, trade, [], NARROWING, orders).next).toMatch(/^Widen the window/);
  });

  it('says why an identifier chip is red', () => {
    expect(idProblem('AAPL', ['AAPL'], trade)).toBeNull();
    expect(idProblem('ZZZ', [], trade)).toBeNull();
    expect(idProblem('ZZZ', ['AAPL'], trade)).toBe('not in Trade on any date (2024-03-06 → 2024-03-07)');
    expect(idProblem('aapl', ['AAPL'], { name: 'Trade', firstDate: '2024-03-06', lastDate: '2024-03-06' })).toBe('not in Trade on any date (2024-03-06); did you mean AAPL?');
  });
});
