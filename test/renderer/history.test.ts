/** The app's memory (SPEC 9): history, saved queries and the URL, as pure functions. */
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../engine/operations/index.js';
import { addEntry, formFromArgs, hashOf, HISTORY_LIMIT, type HistoryEntry, parseHash, parseSavedQueries, putSaved, savedQueriesJson, searchHistory, withoutSecrets } from '../../renderer/src/history/history.js';
import { SessionMemory } from '../../renderer/src/history/storage.js';
import { buildArgs } from '../../renderer/src/store/request.js';

const op = (name: string) => OPERATIONS.find((o) => o.name === name)!;

/** Requests of every shape the forms send (lists, filters, trees, pairs, booleans, the null symbol). */
const REQUESTS: Array<[string, Record<string, unknown>]> = [
  ['getTicks', { table: 'Trade', startTS: '2024.03.06D14:30', endTS: '2024.03.06D15:00', idList: ['AAPL', 'MSFT'], columns: ['price', 'volume'], filter: [['>', 'price', '100']], sortCols: [['desc', 'volume']], applyCanCor: '1b', slice: ['09:30', '16:00'], decPlaces: '2', outputTZ: 'America/New_York' }],
  ['getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', groupBy: ['instrumentID'], agg: { hi: ['max', 'price'], vwap: ['%', ['sum', ['*', 'price', 'volume']], ['sum', 'volume']] }, granularity: '5', granularityUnit: 'minute', fill: 'forward' }],
  ['getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', groupBy: [], analytics: ['vwap'], applyHolidayCalendar: '' }],
  ['getOrderAnalyticSummary', { table: 'OrderAnalytics', startTS: '2024.03.06', endTS: '2024.03.08', groupBy: ['algoStrategy', 'side'], summaryFunctions: ['orderCount'] }],
  ['generateOrderAnalytics', { table: 'Order', dt: '2024.03.06', regenExistingIDs: '1b', instrumentBatchSz: '10' }],
];

const entry = (i: number, extra: Partial<HistoryEntry> = {}): HistoryEntry => ({
  id: `q${i}`,
  operation: 'getTicks',
  args: { table: i % 2 ? 'Quote' : 'Trade', idList: [`ID${i}`] },
  connection: 'Embedded engine',
  startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  ms: i,
  ok: true,
  rows: i * 10,
  code: null,
  message: null,
  ...extra,
});

describe('history and saved queries', () => {
  it('restore a form that sends exactly the request it came from', () => {
    for (const [name, args] of REQUESTS) {
      const spec = op(name);
      const present = Object.fromEntries(Object.entries(args).filter(([k]) => spec.args.some((a) => a.name === k)));
      expect(buildArgs(spec, formFromArgs(spec, present)), name).toEqual(present);
    }
  });

  it('put the request in the URL and read it back; a malformed fragment is no request', () => {
    const [name, args] = REQUESTS[1]!;
    const hash = hashOf(name, args);
    expect(hash.startsWith('#op=getStats&args=')).toBe(true);
    expect(parseHash(hash)).toEqual({ operation: name, args });
    expect(parseHash(new URL(`http://x/app${hash}`).hash)).toEqual({ operation: name, args });
    expect(parseHash('')).toBeNull();
    expect(parseHash('#op=getTicks&args=%7Bnot-json')).toBeNull();
    expect(parseHash('#op=getTicks&args=%5B1%5D')).toBeNull();
  });

  it('keep the newest 1,000 runs, newest first, and find them by any word', () => {
    let list: HistoryEntry[] = [];
    for (let i = 0; i < HISTORY_LIMIT + 20; i++) list = addEntry(list, entry(i, i === 7 ? { ok: false, rows: null, code: 23, message: 'startTS >= endTS' } : {}));
    expect(list).toHaveLength(HISTORY_LIMIT);
    expect(list[0]!.id).toBe(`q${HISTORY_LIMIT + 19}`);
    expect(list.at(-1)!.id).toBe('q20');
    expect(searchHistory(list, 'quote ID1017').map((e) => e.id)).toEqual(['q1017']);
    expect(searchHistory(list, 'trade ID1017')).toEqual([]);
    expect(searchHistory(list, 'error 23')).toEqual([]); // q7 was dropped: beyond the 1,000 kept
    const recent = addEntry([], entry(7, { ok: false, rows: null, code: 23, message: 'startTS >= endTS' }));
    expect(searchHistory(recent, 'error 23').map((e) => e.id)).toEqual(['q7']);
  });

  it('never keep a secret: not in history, saved queries, URLs or exports', () => {
    const args = { table: 'Trade', connection: { url: 'https://gw', clientId: 'me', clientSecret: 's3cr3t' }, password: 'p', idList: ['AAPL'] };
    expect(withoutSecrets(args)).toEqual({ table: 'Trade', connection: { url: 'https://gw', clientId: 'me' }, idList: ['AAPL'] });
    expect(JSON.stringify(addEntry([], entry(1, { args })))).not.toContain('s3cr3t');
    expect(decodeURIComponent(hashOf('getTicks', args))).not.toContain('s3cr3t');
    const saved = putSaved([], { name: 'mine', operation: 'getTicks', args, savedAt: '2026-01-01T00:00:00.000Z' });
    expect(savedQueriesJson(saved)).not.toContain('s3cr3t');
  });

  it('export saved queries as one file and import them back; a bad file says what is wrong', () => {
    let saved = putSaved([], { name: 'b day', operation: 'getTicks', args: REQUESTS[0]![1], savedAt: '2026-01-01T00:00:00.000Z' });
    saved = putSaved(saved, { name: 'a vwap', operation: 'getStats', args: REQUESTS[2]![1], savedAt: '2026-01-02T00:00:00.000Z' });
    saved = putSaved(saved, { name: 'b day', operation: 'getTicks', args: { table: 'Quote' }, savedAt: '2026-01-03T00:00:00.000Z' });
    expect(saved.map((q) => q.name)).toEqual(['a vwap', 'b day']);
    expect(saved[1]!.args).toEqual({ table: 'Quote' });
    expect(parseSavedQueries(savedQueriesJson(saved))).toEqual(saved);
    expect(() => parseSavedQueries('{')).toThrow(/^not JSON/);
    expect(() => parseSavedQueries('{"queries":[{"name":"x","operation":"getTicks","args":[]}]}')).toThrow('queries[0] (x): args is not an object');
    expect(() => parseSavedQueries('{"queries":[{"operation":"getTicks","args":{}}]}')).toThrow('queries[0]: no name');
  });

  it('keep them for the session where the page has no IndexedDB', async () => {
    const m = new SessionMemory();
    await m.record(entry(1));
    await m.record(entry(2));
    expect((await m.history()).map((e) => e.id)).toEqual(['q2', 'q1']);
    await m.setSaved([{ name: 'x', operation: 'getTicks', args: {}, savedAt: '' }]);
    expect(await m.saved()).toHaveLength(1);
  });
});
