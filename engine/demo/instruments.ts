/**
 * The demo's instruments: well-known US and London names first, synthetic ones beyond them. The set
 * depends only on the instrument count (not on the seed), so the config (idMap) is fixed per count.
 */
import type { Column } from '../core/column.js';
import { columnFromValues } from '../core/builder.js';
import { Table } from '../core/table.js';
import { type Exchange, XLON, XNAS, XNYS } from './calendar.js';

export interface DemoInstrument {
  /** Stored identifier: the plain ticker. */
  readonly id: string;
  readonly name: string;
  readonly isin: string;
  readonly exchange: Exchange;
  readonly sector: string;
  readonly lotSize: number;
  readonly tickSize: number;
  /** 1 / tickSize, an integer, so a price is (integer ticks) / ticksPerUnit, the nearest double to the decimal. */
  readonly ticksPerUnit: number;
  readonly startPrice: number;
  readonly annualVol: number;
  /** Relative trading activity (share of trades). */
  readonly weight: number;
}

type Seed = readonly [ticker: string, name: string, exchange: Exchange, sector: string, price: number, vol: number];

const US: readonly Seed[] = [
  ['AAPL', 'Apple Inc.', XNAS, 'Technology', 170, 0.25],
  ['MSFT', 'Microsoft Corporation', XNAS, 'Technology', 405, 0.24],
  ['NVDA', 'NVIDIA Corporation', XNAS, 'Technology', 860, 0.5],
  ['AMZN', 'Amazon.com, Inc.', XNAS, 'Consumer Discretionary', 175, 0.32],
  ['GOOGL', 'Alphabet Inc. Class A', XNAS, 'Communication Services', 133, 0.3],
  ['META', 'Meta Platforms, Inc.', XNAS, 'Communication Services', 500, 0.38],
  ['IBM', 'International Business Machines Corporation', XNYS, 'Technology', 195, 0.2],
  ['JPM', 'JPMorgan Chase & Co.', XNYS, 'Financials', 185, 0.22],
  ['XOM', 'Exxon Mobil Corporation', XNYS, 'Energy', 105, 0.26],
  ['JNJ', 'Johnson & Johnson', XNYS, 'Health Care', 158, 0.16],
  ['KO', 'The Coca-Cola Company', XNYS, 'Consumer Staples', 60, 0.15],
  ['WMT', 'Walmart Inc.', XNYS, 'Consumer Staples', 60, 0.18],
  ['INTC', 'Intel Corporation', XNAS, 'Technology', 43, 0.35],
  ['CSCO', 'Cisco Systems, Inc.', XNAS, 'Technology', 49, 0.2],
  ['BA', 'The Boeing Company', XNYS, 'Industrials', 200, 0.33],
  ['DIS', 'The Walt Disney Company', XNYS, 'Communication Services', 110, 0.27],
];

const UK: readonly Seed[] = [
  ['VOD', 'Vodafone Group Plc', XLON, 'Telecommunications', 0.7, 0.25],
  ['BP', 'BP p.l.c.', XLON, 'Energy', 4.75, 0.24],
  ['HSBA', 'HSBC Holdings plc', XLON, 'Financials', 6.1, 0.2],
  ['SHEL', 'Shell plc', XLON, 'Energy', 25.5, 0.22],
  ['AZN', 'AstraZeneca PLC', XLON, 'Health Care', 102, 0.2],
  ['ULVR', 'Unilever PLC', XLON, 'Consumer Staples', 38, 0.16],
  ['GSK', 'GSK plc', XLON, 'Health Care', 16.5, 0.2],
  ['RIO', 'Rio Tinto plc', XLON, 'Materials', 51, 0.28],
  ['LLOY', 'Lloyds Banking Group plc', XLON, 'Financials', 0.46, 0.27],
  ['BARC', 'Barclays PLC', XLON, 'Financials', 1.6, 0.3],
  ['BATS', 'British American Tobacco p.l.c.', XLON, 'Consumer Staples', 23.5, 0.18],
  ['DGE', 'Diageo plc', XLON, 'Consumer Staples', 28.5, 0.2],
];

const SECTORS = ['Technology', 'Industrials', 'Financials', 'Health Care', 'Energy', 'Utilities', 'Materials'];

/** Letters for the n-th synthetic name: A..Z, then AA, AB, ... */
function letters(n: number): string {
  let s = '';
  let k = n;
  do {
    s = String.fromCharCode(65 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return s;
}

function synthetic(region: 'US' | 'UK', n: number): Seed {
  const tag = letters(n);
  const price = region === 'US' ? 20 + ((n * 37) % 180) : 1 + ((n * 13) % 40);
  const sector = SECTORS[n % SECTORS.length]!;
  return region === 'US'
    ? [`DEM${tag}`, `Demo Industries ${tag} Inc.`, n % 2 === 0 ? XNAS : XNYS, sector, price, 0.3]
    : [`DLN${tag}`, `Demo Holdings ${tag} plc`, XLON, sector, price, 0.3];
}

/** The ISIN check digit (Luhn over the letters-as-numbers expansion) of an 11-character prefix. */
export function isinCheckDigit(prefix: string): number {
  let digits = '';
  for (const ch of prefix.toUpperCase()) {
    const c = ch.charCodeAt(0);
    digits += c >= 65 && c <= 90 ? String(c - 55) : ch;
  }
  let sum = 0;
  // the check digit will be the right-most, so the right-most digit of the prefix is doubled
  for (let i = digits.length - 1, dbl = true; i >= 0; i--, dbl = !dbl) {
    let v = digits.charCodeAt(i) - 48;
    if (dbl) {
      v *= 2;
      if (v > 9) v -= 9;
    }
    sum += v;
  }
  return (10 - (sum % 10)) % 10;
}

function syntheticIsin(ticker: string, ex: Exchange): string {
  // synthetic national numbers built from the ticker: unique, recognisably fake, valid check digit
  const prefix = ex.region === 'US' ? `US${ticker.padEnd(9, '0')}` : `GB00${ticker.padEnd(7, '0')}`;
  return prefix + String(isinCheckDigit(prefix));
}

/** London tick sizes follow price bands; pick the finest tick worth at least 1 bp of the price. */
function ticksPerUnitFor(ex: Exchange, price: number): number {
  if (ex.region === 'US') return 100;
  for (const perUnit of [10000, 5000, 2000, 1000, 500, 200, 100, 50, 20]) if (1 / perUnit >= price * 1e-4) return perUnit;
  return 10;
}

/** The demo instruments for a count (>= 2): about 60% US and 40% London, sorted by ticker. */
export function demoInstruments(count: number): DemoInstrument[] {
  const nUs = Math.min(count - 1, Math.max(1, Math.round(count * 0.6)));
  const seeds: Array<{ seed: Seed; rank: number }> = [];
  for (let i = 0; i < nUs; i++) seeds.push({ seed: US[i] ?? synthetic('US', i - US.length), rank: i });
  for (let i = 0; i < count - nUs; i++) seeds.push({ seed: UK[i] ?? synthetic('UK', i - UK.length), rank: i });
  return seeds
    .map(({ seed: [id, name, exchange, sector, price, vol], rank }) => {
      const ticksPerUnit = ticksPerUnitFor(exchange, price);
      return {
        id,
        name,
        isin: syntheticIsin(id, exchange),
        exchange,
        sector,
        lotSize: exchange.region === 'US' ? 100 : 1,
        tickSize: 1 / ticksPerUnit,
        ticksPerUnit,
        startPrice: price,
        annualVol: vol,
        // busiest names first, London a little quieter than the US
        weight: (exchange.region === 'US' ? 1 : 0.8) / Math.sqrt(rank + 1),
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** RIC-style and Bloomberg-style names of every instrument, mapped to the stored ticker. */
export function demoIdMap(instruments: readonly DemoInstrument[]): Record<string, string> {
  const ric: Record<string, string> = { XNAS: 'OQ', XNYS: 'N', XLON: 'L' };
  const bbg: Record<string, string> = { US: 'US', UK: 'LN' };
  const map: Record<string, string> = {};
  for (const i of instruments) {
    map[`${i.id}.${ric[i.exchange.mic]!}`] = i.id;
    map[`${i.id} ${bbg[i.exchange.region]!} Equity`] = i.id;
  }
  return map;
}

/** The Instrument reference table (schema column order). */
export function instrumentTable(instruments: readonly DemoInstrument[]): Table {
  const col = (type: 'symbol' | 'string' | 'long' | 'float', f: (i: DemoInstrument) => string | number): Column =>
    columnFromValues(type, instruments.map(f));
  return new Table(
    ['instrumentID', 'instrumentName', 'ISIN', 'MIC', 'exchangeID', 'currency', 'sector', 'lotSize', 'tickSize'],
    [
      col('symbol', (i) => i.id),
      col('string', (i) => i.name),
      col('symbol', (i) => i.isin),
      col('symbol', (i) => i.exchange.mic),
      col('symbol', (i) => i.exchange.mic),
      col('symbol', (i) => i.exchange.currency),
      col('symbol', (i) => i.sector),
      col('long', (i) => i.lotSize),
      col('float', (i) => i.tickSize),
    ],
  );
}
