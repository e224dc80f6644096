/** The form's time fields: the forms the engine reads, specific reasons for bad ones, the calendar helper. */
import { describe, expect, it } from 'vitest';
import { checkDate, checkTimestamp, describeStamp, fromPicker, parseTimeOfDay, pickerValue, windowProblem } from '../../renderer/src/form/time-text.js';
import { parseTimestampLiteral } from '../../engine/core/time.js';

describe('timestamp text', () => {
  const accepted = ['2024.03.06D09:30:00.123456789', '2024.03.06D09:30', '2024.03.06D09:30:05', '2024.03.06', '2024-03-06T09:30:00.5', '2024-03-06T09:30:00Z', '2024-03-06 09:30+01:00', '0Wp', '-0Wp', ' 2024.03.06D09:30 '];
  const rejected = ['tomorrow', '2024.3.6', '2024.02.30', '2024.13.01', '2024.03.06D24:00', '2024.03.06D09:60', '2024.03.06D09:30:00.1234567890', '2024-03-06T09:30+25:00'];

  it('accepts exactly what the engine accepts', () => {
    for (const t of [...accepted, ...rejected]) {
      expect(checkTimestamp(t)?.ok ?? true, t).toBe(parseTimestampLiteral(t) !== undefined);
    }
    expect(checkTimestamp('')).toBeNull();
  });

  it('says why a value is wrong', () => {
    expect(checkTimestamp('2024.02.30')).toEqual({ ok: false, error: '2024.02 has no day 30' });
    expect(checkTimestamp('2024.13.01')).toEqual({ ok: false, error: 'month 13 does not exist' });
    expect(checkTimestamp('2024.03.06D25:00')).toEqual({ ok: false, error: 'hour 25 is past 23' });
    expect(checkTimestamp('tomorrow')).toMatchObject({ ok: false, error: expect.stringMatching(/^not a timestamp; use 2024\.03\.06D09:30:00\.123456789/) });
  });

  it('tells local times (read in inputTZ) from absolute instants', () => {
    expect(checkTimestamp('2024.03.06D09:30')).toMatchObject({ kind: 'local' });
    expect(checkTimestamp('2024-03-06T09:30Z')).toMatchObject({ kind: 'instant', offset: 'UTC' });
    expect(checkTimestamp('2024-03-06T09:30-05:00')).toMatchObject({ kind: 'instant', offset: '-05:00' });
    expect(describeStamp(checkTimestamp('2024.03.06D09:30:00.000000007')!)).toBe('2024-03-06 09:30:00.000000007');
  });

  it('flags a window whose start is not before its end', () => {
    expect(windowProblem('2024.03.06D15:30', '2024.03.06D14:30')).toBe('startTS >= endTS');
    expect(windowProblem('2024.03.06D14:30', '2024.03.06D14:30')).toBe('startTS >= endTS');
    expect(windowProblem('2024.03.06D14:30', '2024.03.06D14:30:00.000000001')).toBeNull();
    expect(windowProblem('2024.03.06D15:30', '2024-03-06T14:30Z')).toBeNull(); // different clocks: the engine decides
    expect(windowProblem('', '2024.03.06')).toBeNull();
  });

  it('round-trips the calendar helper, keeping nanoseconds when only the day changes', () => {
    expect(pickerValue('2024.03.06D09:30:00.123456789')).toBe('2024-03-06T09:30:00');
    expect(pickerValue('garbage')).toBe('');
    expect(fromPicker('2024-03-07T09:30:00', '2024.03.06D09:30:00.123456789')).toBe('2024.03.07D09:30:00.123456789');
    expect(fromPicker('2024-03-07T10:15', '2024.03.06D09:30:00.123456789')).toBe('2024.03.07D10:15:00');
    expect(fromPicker('2024-03-07T10:15:30', '')).toBe('2024.03.07D10:15:30');
  });
});

describe('dates and times of day', () => {
  it('checks dates', () => {
    expect(checkDate('2024.03.06')).toEqual({ ok: true });
    expect(checkDate('2024-03-06')).toEqual({ ok: true });
    expect(checkDate('2023.02.29')).toEqual({ ok: false, error: '2023.02 has no day 29' });
    expect(checkDate('')).toBeNull();
  });

  it('parses times of day to nanoseconds', () => {
    expect(parseTimeOfDay('09:30')).toBe(34_200e9);
    expect(parseTimeOfDay('0D09:30:00.000000001')).toBe(34_200e9 + 1);
    expect(parseTimeOfDay('')).toBeNull();
    expect(parseTimeOfDay('9h30')).toMatch(/^not a time of day/);
    expect(parseTimeOfDay('1D01:00')).toBe('1D is more than a time of day');
  });
});
