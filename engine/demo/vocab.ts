/**
 * The fixed symbol vocabularies of the demo (dictionary code 0 is always the null symbol ""), and
 * the trade condition codes each exchange uses.
 */
import type { Exchange } from './calendar.js';

export const MIC_DICT = ['', 'XLON', 'XNAS', 'XNYS'] as const;
export const SRC_DICT = ['', 'CTA', 'UTP', 'LSE', 'CQS', 'UQDF', 'OPENBOOK', 'ITCH', 'MITCH'] as const;
export const SIDE_DICT = ['', 'bid', 'ask'] as const;
export const ACTION_DICT = ['', 'add', 'modify', 'delete'] as const;
export const CANCOR_DICT = ['', 'cancel', 'correct'] as const;
export const TICK_DICT = ['', '+', '-', '0+', '0-'] as const;

export const SIDE_BID = 1;
export const SIDE_ASK = 2;
export const ACT_ADD = 1;
export const ACT_MODIFY = 2;
export const ACT_DELETE = 3;
export const CC_CANCEL = 1;
export const CC_CORRECT = 2;
export const TICK_UP = 1;
export const TICK_DOWN = 2;
export const TICK_ZERO_UP = 3;
export const TICK_ZERO_DOWN = 4;

/** Condition codes: US consolidated-tape sale conditions and LSE trade types. */
export const COND_DICT = ['', '@', 'F', 'O', '6', '4', 'Z', 'AT', 'UT', 'NT'] as const;
export const NORM_DICT = [
  '', 'Regular', 'IntermarketSweep', 'OpeningAuction', 'ClosingAuction', 'DerivativelyPriced', 'OutOfSequence', 'Negotiated',
] as const;

/** Codes a "regular trades only" filter drops: auction prints, off-book and out-of-sequence reports. */
export const NON_REGULAR_CONDITIONS: readonly string[] = ['O', '6', '4', 'Z', 'UT', 'NT'];

/** What kind of print a trade is; mapped to a condition code per exchange. */
export const TradeKind = { Regular: 0, Sweep: 1, Open: 2, Close: 3, OffBook: 4, OutOfSequence: 5, Unknown: 6 } as const;

const code = (dict: readonly string[], s: string): number => {
  const i = dict.indexOf(s);
  if (i < 0) throw new Error(`demo vocabulary has no ${s}`);
  return i;
};

/** Per exchange: condition code and normalised condition code for each TradeKind. */
export interface ConditionCodes {
  readonly cond: Int32Array;
  readonly norm: Int32Array;
}

/** The condition codes one exchange stamps on each kind of trade. */
export function conditionCodes(ex: Exchange): ConditionCodes {
  const us = ex.region === 'US';
  const pairs: Array<[string, string]> = [
    [us ? '@' : 'AT', 'Regular'],
    [us ? 'F' : 'AT', us ? 'IntermarketSweep' : 'Regular'],
    [us ? 'O' : 'UT', 'OpeningAuction'],
    [us ? '6' : 'UT', 'ClosingAuction'],
    [us ? '4' : 'NT', us ? 'DerivativelyPriced' : 'Negotiated'],
    [us ? 'Z' : 'NT', us ? 'OutOfSequence' : 'Negotiated'],
    ['', ''],
  ];
  return {
    cond: Int32Array.from(pairs, ([c]) => code(COND_DICT, c)),
    norm: Int32Array.from(pairs, ([, n]) => code(NORM_DICT, n)),
  };
}

/** Dictionary code of an exchange's MIC. */
export function micCode(ex: Exchange): number {
  return code(MIC_DICT, ex.mic);
}

/** Dictionary code of a source system name. */
export function srcCode(name: string): number {
  return code(SRC_DICT, name);
}
