/**
 * Group colours that stay put, the bucket -> getTicks link of the order-book view (windows to the
 * nanosecond, DST-safe), and the form's bucket hints.
 */
import { describe, expect, it } from 'vitest';
import { bucketHint, granularityHint, missingNeeds, movingWindowHint, unitHint, windowLengthNs } from '../../renderer/src/form/bucket-hints.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { toggleGroup } from '../../renderer/src/components/stats/group-legend.js';
import { assignColours, GROUP_PALETTE, withAlpha } from '../../renderer/src/stats/group-colours.js';
import { bucketSpec, bucketWindow, instantOf, isoInstant, ladderArgs } from '../../renderer/src/stats/ladder-link.js';

const ns = (iso: string, extra = 0n): bigint => BigInt(Date.parse(iso)) * 1_000_000n + extra;

describe('group colours', () => {
  it('differ within a result and stay with their group across runs', () => {
    const memory = new Map<string, number>();
    const first = assignColours(['AAPL', 'MSFT', 'VOD'], memory);
    expect(new Set(first).size).toBe(3);
    const again = assignColours(['MSFT', 'NVDA', 'VOD'], memory);
    expect(again[0]).toBe(first[1]);
    expect(again[2]).toBe(first[2]);
    expect([first[0], first[1], first[2]]).not.toContain(again[1]);
  });

  it('spread over the palette when there are more groups than colours', () => {
    const keys = Array.from({ length: GROUP_PALETTE.length + 2 }, (_, i) => `G${i}`);
    const colours = assignColours(keys, new Map());
    expect(new Set(colours).size).toBe(GROUP_PALETTE.length);
    expect(withAlpha('#4ea1ff', 0.5)).toBe('rgba(78, 161, 255, 0.5)');
  });

  it('toggle in the legend, solo with Shift, one at a time in single mode', () => {
    expect([...toggleGroup(new Set([0, 1]), 1, false, false)]).toEqual([0]);
    expect([...toggleGroup(new Set([0]), 2, false, false)]).toEqual([0, 2]);
    expect([...toggleGroup(new Set([0, 1, 2]), 1, true, false)]).toEqual([1]);
    expect([...toggleGroup(new Set([0]), 3, false, true)]).toEqual([3]);
  });
});

describe('ladder link', () => {
  it('writes instants as ISO with Z and nine digits, and reads the form’s timestamps in their zone', () => {
    expect(isoInstant(ns('2024-03-06T14:30:00Z', 1n))).toBe('2024-03-06T14:30:00.000000001Z');
    expect(instantOf('2024.03.06D09:30', 'America/New_York')).toBe(ns('2024-03-06T14:30:00Z'));
    expect(instantOf('2024.03.11D09:30:00.000000005', 'America/New_York')).toBe(ns('2024-03-11T13:30:00Z', 5n));
    expect(instantOf('2024-03-06T09:30:00+01:00', 'America/New_York')).toBe(ns('2024-03-06T08:30:00Z'));
    expect(instantOf('2024-03-06T09:30:00Z', 'Asia/Tokyo')).toBe(ns('2024-03-06T09:30:00Z'));
    expect([instantOf('', 'UTC'), instantOf('0Wp', 'UTC')]).toEqual([null, null]);
  });

  const window = { start: ns('2024-03-06T14:30:00Z'), end: ns('2024-03-06T15:02:30Z') };

  it('gives a bucket’s own window: start-labelled, end-labelled with a moving window, clipped to the call', () => {
    const min5 = { unit: 'minute', granularity: 5, movingWindowSize: null, zone: 'UTC' };
    expect(bucketWindow(ns('2024-03-06T14:35:00Z'), min5, window)).toEqual({ start: ns('2024-03-06T14:35:00Z'), end: ns('2024-03-06T14:40:00Z') });
    expect(bucketWindow(ns('2024-03-06T15:00:00Z'), min5, window).end).toBe(window.end);
    const moving = { unit: 'minute', granularity: 5, movingWindowSize: 15, zone: 'UTC' };
    expect(bucketWindow(ns('2024-03-06T14:50:00Z'), moving, window)).toEqual({ start: ns('2024-03-06T14:35:00Z'), end: ns('2024-03-06T14:50:00Z') });
    expect(bucketWindow(ns('2024-03-06T14:35:00Z'), moving, window).start).toBe(window.start);
    const ms = { unit: 'millisecond', granularity: 1, movingWindowSize: null, zone: 'UTC' };
    expect(bucketWindow(ns('2024-03-06T14:40:00.007Z'), ms, window).end).toBe(ns('2024-03-06T14:40:00.008Z'));
  });

  it('counts day buckets in calendar days of inputTZ (23 hours on the spring change)', () => {
    const day = { unit: 'day', granularity: 1, movingWindowSize: null, zone: 'America/New_York' };
    const open = ns('2024-03-09T14:30:00Z'); // 09:30 New York, the Saturday before the change
    expect(bucketWindow(open, day, { start: null, end: null }).end).toBe(ns('2024-03-10T13:30:00Z'));
  });

  it('builds the getTicks call of one group at one bucket, or over the whole window', () => {
    const stats = { table: 'OrderbookSnapshots', orderbook: 'plotOrderbookSnapshots', startTS: '2024.03.06D09:30', endTS: '2024.03.06D10:02:30', inputTZ: 'America/New_York', outputTZ: 'Europe/London', granularity: '5', granularityUnit: 'minute', idList: ['AAPL', 'MSFT'], analytics: ['avgBidSize'] };
    expect(bucketSpec(stats)).toEqual({ unit: 'minute', granularity: 5, movingWindowSize: null, zone: 'America/New_York' });
    expect(ladderArgs(stats, 'MSFT', ns('2024-03-06T15:00:00Z'))).toEqual({
      table: 'OrderbookSnapshots',
      orderbook: 'plotOrderbookSnapshots',
      idList: ['MSFT'],
      startTS: '2024-03-06T15:00:00.000000000Z',
      endTS: '2024-03-06T15:02:30.000000000Z',
      inputTZ: 'America/New_York',
      outputTZ: 'Europe/London',
    });
    const whole = ladderArgs({ ...stats, granularityUnit: undefined }, 'AAPL', null);
    expect([whole?.['startTS'], whole?.['endTS']]).toEqual(['2024.03.06D09:30', '2024.03.06D10:02:30']);
    expect(ladderArgs({ orderbook: 'plotOrderbookSnapshots' }, 'AAPL', null)).toBeNull();
  });
});

describe('bucket hints', () => {
  const base = { startTS: '2024.03.06D09:30', endTS: '2024.03.06D16:00' };
  // the bucket arguments getStats declares
  const stats = OPERATIONS.find((o) => o.name === 'getStats')!;
  const b = stats.buckets!;

  it('size the buckets and estimate how many each group gets', () => {
    expect(windowLengthNs(base.startTS, base.endTS)).toBe(6.5 * 3.6e12);
    expect(unitHint({ ...base, granularity: '5', granularityUnit: 'minute' }, b)).toEqual({ level: 'note', text: '5-minute buckets from startTS, labelled by their start: about 78 buckets per group' });
    expect(unitHint({ ...base, granularityUnit: 'millisecond' }, b)?.level).toBe('warn');
    expect(unitHint({ granularityUnit: 'hour', movingWindowSize: '3' }, b)?.text).toBe('1-hour buckets from startTS, labelled by their end');
  });

  it('warn when granularity or movingWindowSize lacks granularityUnit, and explain the moving window', () => {
    expect(granularityHint({ granularity: '5' }, b)?.text).toBe('needs granularityUnit; without it the whole window is one bucket');
    expect(granularityHint({ granularity: '0', granularityUnit: 'minute' }, b)?.text).toBe('a positive integer, such as 5');
    expect(granularityHint({ granularity: '5', granularityUnit: 'minute' }, b)).toBeNull();
    expect(movingWindowHint({ movingWindowSize: '30' }, b)?.level).toBe('warn');
    expect(movingWindowHint({ movingWindowSize: '30', granularity: '5', granularityUnit: 'minute' }, b)?.text).toBe('each bucket aggregates the last 30 minutes up to its end (labels are bucket ends); overlaps earlier buckets');
  });

  it('list what the holiday calendar needs, from its declaration', () => {
    const holiday = stats.args.find((a) => a.requires?.args.includes('fill'))!;
    expect(missingNeeds(holiday, { [holiday.name]: '1b' })).toEqual(['fill', 'granularityUnit']);
    expect(missingNeeds(holiday, { [holiday.name]: 'XLON', fill: 'linear', granularityUnit: 'day' })).toEqual([]);
    expect(missingNeeds(holiday, { [holiday.name]: '0b' })).toEqual([]);
  });

  it('come from the operation that declares bucket arguments, and only for those', () => {
    expect(bucketHint(stats, b.size, { granularity: '5' })?.text).toBe('needs granularityUnit; without it the whole window is one bucket');
    expect(bucketHint(stats, 'decPlaces', { decPlaces: '2' })).toBeNull();
    const ticks = OPERATIONS.find((o) => o.name === 'getTicks')!;
    expect(ticks.buckets).toBeNull();
    expect(bucketHint(ticks, 'granularity', { granularity: '5' })).toBeNull();
  });
});
