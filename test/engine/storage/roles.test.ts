/**
 * Column roles (SPEC 3.2 `roles`): order analytics read trades and quotes through them, so a database
 * whose columns are named otherwise answers as the standard one once its config says which is which;
 * roles that name what the schema lacks are refused when the database is opened.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../engine/engine.js';
import { AppService } from '../../../engine/service/app-service.js';
import { configFromJson, configToJson, defaultConfig } from '../../../engine/storage/config.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile } from '../../../engine/storage/import.js';
import { rolesOf } from '../../../engine/storage/source.js';
import { type Schema, standardSchema, type TableSchema } from '../../../engine/storage/schema.js';
import { csv, makeEngine, payloadRows, tempDir } from '../../helpers/db.js';

const ORDERS = csv(['eventTimestamp', 'instrumentID', 'orderID', 'eventType', 'side', 'orderQty', 'lastQty', 'lastPx'], [
  ['2024.03.06D15:00', 'AAPL', 'o1', 'New', 'Buy', '100', '', ''],
  ['2024.03.06D15:30', 'AAPL', 'o1', 'Fill', 'Buy', '', '60', '10.1'],
  ['2024.03.06D15:40', 'AAPL', 'o1', 'Fill', 'Buy', '', '40', '10.2'],
  ['2024.03.06D15:41', 'AAPL', 'o1', 'Done', 'Buy', '', '', ''],
  ['2024.03.06D16:00', 'MSFT', 'o2', 'New', 'Sell', '50', '', ''],
  ['2024.03.06D16:10', 'MSFT', 'o2', 'Fill', 'Sell', '', '50', '401'],
]);
const QUOTE_ROWS = [
  ['2024.03.05D20:00', 'AAPL', '9.9', '10.1'],
  ['2024.03.06D15:20', 'AAPL', '10.0', '10.4'],
  ['2024.03.06D15:55', 'MSFT', '400', '402'],
];
const TRADE_ROWS = [
  ['2024.03.06D15:10', 'AAPL', '10.0', '100'],
  ['2024.03.06D15:35', 'AAPL', '10.3', '300'],
  ['2024.03.06D16:05', 'MSFT', '400.5', '1000'],
];

/** The standard schema with Quote's and Trade's columns renamed as a kdb+ tick setup names them. */
function renamedSchema(): Schema {
  const rename = (t: TableSchema, names: Record<string, string>): TableSchema => ({
    ...t,
    columns: t.columns.map((c) => ({ ...c, name: names[c.name] ?? c.name })),
    timeColumn: names[t.timeColumn!] ?? t.timeColumn!,
  });
  const tables = new Map(standardSchema().tables);
  tables.set('Quote', rename(tables.get('Quote')!, { eventTimestamp: 'time', bidPrice: 'bid', askPrice: 'ask', bidSize: 'bsize', askSize: 'asize' }));
  tables.set('Trade', rename(tables.get('Trade')!, { eventTimestamp: 'time', volume: 'size' }));
  return { tables };
}

const ROLES = {
  trades: 'Trade',
  quotes: 'Quote',
  columns: { Trade: { price: 'price', size: 'size' }, Quote: { bid: 'bid', ask: 'ask', bidSize: 'bsize', askSize: 'asize' } },
};

function renamedEngine(roles: unknown): Engine {
  const dir = join(tempDir(), 'ticks');
  const db = Database.create(dir, renamedSchema(), configFromJson({ roles }));
  const load = (table: string, text: string): void => {
    const file = join(tempDir(), `${table}.csv`);
    writeFileSync(file, text);
    importFile(db, table, file);
  };
  load('Order', ORDERS);
  load('Quote', csv(['time', 'instrumentID', 'bid', 'ask'], QUOTE_ROWS));
  load('Trade', csv(['time', 'instrumentID', 'price', 'size'], TRADE_ROWS));
  return Engine.open([dir]);
}

describe('column roles', () => {
  it("give order analytics the trades and quotes of columns named otherwise, as the standard tables' give them", () => {
    const standard = makeEngine({ Order: ORDERS, Quote: csv(['eventTimestamp', 'instrumentID', 'bidPrice', 'askPrice'], QUOTE_ROWS), Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], TRADE_ROWS) });
    const args = { table: 'Order', dt: '2024.03.06' };
    const want = payloadRows(standard, 'generateOrderAnalytics', args);
    expect(want).toHaveLength(2);
    // the arrival mid and interval volume come from the quotes and trades: they are read
    expect(want[0]).toMatchObject({ orderID: 'o1', arrivalMid: 10 });
    const renamed = renamedEngine(ROLES);
    expect(payloadRows(renamed, 'generateOrderAnalytics', args)).toEqual(want);
    // and the app is told them
    expect(new AppService(renamed, 'browser').info().assemblies[0]!.roles).toEqual({ trades: 'Trade', quotes: 'Quote', columns: ROLES.columns });
  });

  it('are the standard tables\u2019 when the config has none, and kept by config.json', () => {
    const r = rolesOf({ name: 'db', schema: standardSchema(), config: defaultConfig() });
    expect([r.trades?.table.name, r.trades?.price, r.trades?.size, r.quotes?.table.name, r.quotes?.bid, r.quotes?.ask]).toEqual(['Trade', 'price', 'volume', 'Quote', 'bidPrice', 'askPrice']);
    expect(configToJson(configFromJson({ roles: ROLES }))['roles']).toEqual(ROLES);
    expect(configToJson(defaultConfig())['roles']).toBeUndefined();
  });

  it('that name what the schema lacks are refused when the database opens, naming the item', () => {
    const refused = (roles: unknown): string => {
      try {
        renamedEngine(roles);
      } catch (e) {
        return (e as Error).message.replace(/^.*config\.json: /, '');
      }
      return 'opened';
    };
    expect(refused(ROLES)).toBe('opened');
    expect(refused({ ...ROLES, columns: { ...ROLES.columns, Quote: { bid: 'bidPrice', ask: 'ask' } } })).toBe(
      'roles.columns.Quote.bid is "bidPrice", not a column of Quote; expected a numeric column of Quote',
    );
    expect(refused({ ...ROLES, columns: { ...ROLES.columns, Trade: { price: 'instrumentID', size: 'size' } } })).toBe(
      'roles.columns.Trade.price is "instrumentID", a symbol column; expected a numeric column of Trade',
    );
    expect(refused({ ...ROLES, trades: 'Instrument' })).toBe('roles.trades is "Instrument", a reference table; expected a partitioned table');
    expect(refused({ ...ROLES, columns: { Quote: ROLES.columns.Quote } })).toBe('roles.trades is Trade, whose roles lack price and size; give them in roles.columns.Trade');
    expect(refused({ ...ROLES, columns: { Trades: {} } })).toMatch(/^roles\.columns\.Trades names no table; expected one of Trade, Quote/);
    // shapes are refused when config.json is read
    expect(() => configFromJson({ roles: { columns: { Trade: { volume: 'size' } } } })).toThrow('config.json: roles.columns.Trade.volume is not a role; expected one of price, size, bid, ask, bidSize, askSize, exchange');
    expect(() => configFromJson({ roles: { trade: 'Trade' } })).toThrow('config.json: roles.trade is not a roles item; expected trades, quotes, columns');
  });
});
