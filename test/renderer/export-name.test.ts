import { describe, expect, it } from 'vitest';
import { exportName } from '../../renderer/src/form/export-name';

describe('export file names (SPEC 8)', () => {
  it('name operation, table and the dates the window touches, in inputTZ', () => {
    const day = { startTS: '2024-03-06T00:00:00.000000000', endTS: '2024-03-07T00:00:00.000000000' };
    expect(exportName({ operation: '.fsi.getTicks', args: { table: 'Trade' } }, day, 'csv')).toBe('getTicks_Trade_2024-03-06.csv');
    expect(exportName({ operation: 'getStats', args: { table: 'Quote' } }, { startTS: '2024-03-06T00:00:00.000000000', endTS: '2024-03-09T00:00:00.000000000' }, 'parquet')).toBe('getStats_Quote_2024-03-06_2024-03-08.parquet');
    // end exclusive a nanosecond into the day: that day is touched
    expect(exportName({ operation: 'getTicks', args: { table: 'Trade' } }, { startTS: '2024-03-06T09:00:00.000000000', endTS: '2024-03-07T00:00:00.000000001' }, 'csv')).toBe('getTicks_Trade_2024-03-06_2024-03-07.csv');
  });

  it('take the dates in inputTZ when the header is in another outputTZ, and end with that outputTZ', () => {
    // 2024-03-06 00:00 in New York is 05:00 UTC, which the header shows as 14:00 in Tokyo
    const req = { operation: 'getTicks', args: { table: 'Trade', inputTZ: 'America/New_York', outputTZ: 'Asia/Tokyo' } };
    expect(exportName(req, { startTS: '2024-03-06T14:00:00.000000000', endTS: '2024-03-07T14:00:00.000000000' }, 'csv')).toBe('getTicks_Trade_2024-03-06_Asia-Tokyo.csv');
    // across the New York DST change (2024-03-10): midnight to midnight is still one day each side
    const dst = { operation: 'getTicks', args: { table: 'Trade', inputTZ: 'America/New_York', outputTZ: 'UTC' } };
    expect(exportName(dst, { startTS: '2024-03-10T05:00:00.000000000', endTS: '2024-03-11T04:00:00.000000000' }, 'csv')).toBe('getTicks_Trade_2024-03-10.csv');
  });

  it('name the outputTZ, `/` as `-` (SPEC 8), for every format; UTC is left out', () => {
    const day = { startTS: '2024-03-06T00:00:00.000000000', endTS: '2024-03-07T00:00:00.000000000' };
    const ny = { operation: '.fsi.getTicks', args: { table: 'Trade', outputTZ: 'America/New_York' } };
    expect(exportName(ny, { startTS: '2024-03-05T19:00:00.000000000', endTS: '2024-03-06T19:00:00.000000000' }, 'csv')).toBe('getTicks_Trade_2024-03-06_America-New_York.csv');
    expect(exportName(ny, { startTS: '2024-03-05T19:00:00.000000000', endTS: '2024-03-06T19:00:00.000000000' }, 'parquet')).toBe('getTicks_Trade_2024-03-06_America-New_York.parquet');
    expect(exportName({ operation: 'getStats', args: { table: 'Trade', outputTZ: 'America/Argentina/Buenos_Aires' } }, {}, 'arrow')).toBe('getStats_Trade_America-Argentina-Buenos_Aires.arrow');
    // a zone whose name holds a sign keeps it: Etc/GMT+5 and Etc/GMT-5 are different zones
    expect(exportName({ operation: 'getTicks', args: { table: 'Trade', outputTZ: 'Etc/GMT+5' } }, {}, 'csv')).toBe('getTicks_Trade_Etc-GMT+5.csv');
    for (const utc of [undefined, '', 'UTC', 'Etc/UTC']) {
      expect(exportName({ operation: 'getTicks', args: { table: 'Trade', ...(utc === undefined ? {} : { outputTZ: utc }) } }, day, 'csv')).toBe('getTicks_Trade_2024-03-06.csv');
    }
  });

  it('leave dates out without a window and keep names safe for every file system', () => {
    expect(exportName({ operation: 'getOrderAnalyticSummary', args: { table: 'Order Analytics/x' } }, {}, 'csv')).toBe('getOrderAnalyticSummary_Order-Analytics-x.csv');
    expect(exportName({ operation: 'getTicks', args: {} }, { startTS: '2024-03-06T00:00:00.000000000' }, 'csv')).toBe('getTicks_result_2024-03-06.csv');
  });
});
