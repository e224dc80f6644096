/**
 * schema.json: the tables of a database, their columns and types, time partition column, identifier
 * column and foreign keys (SPEC 3). Validated at load with errors that name the table and field.
 */
import { COLUMN_TYPES, type ColumnType } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import type { ColumnDef } from '../core/table.js';

export interface TableSchema {
  readonly name: string;
  readonly kind: 'partitioned' | 'reference';
  readonly columns: readonly ColumnDef[];
  /** Partitioned tables: the timestamp column the table is partitioned and sorted on. */
  readonly timeColumn?: string;
  /** The identifier column: the left-most symbol column unless the schema names another. */
  readonly idColumn: string;
  /** Reference tables: the key column. */
  readonly key?: string;
  /** Foreign keys: column of this table -> reference table whose key it holds. */
  readonly foreignKeys: Readonly<Record<string, string>>;
}

export interface Schema {
  readonly tables: ReadonlyMap<string, TableSchema>;
}

/** The column definition of a table, or undefined. */
export function columnOf(t: TableSchema, name: string): ColumnDef | undefined {
  return t.columns.find((c) => c.name === name);
}

const sym = (name: string): ColumnDef => ({ name, type: 'symbol' });
const ts = (name: string): ColumnDef => ({ name, type: 'timestamp' });
const fl = (name: string): ColumnDef => ({ name, type: 'float' });
const lg = (name: string): ColumnDef => ({ name, type: 'long' });

const FK_INSTRUMENT = { instrumentID: 'Instrument' } as const;

function partitioned(name: string, columns: ColumnDef[], timeColumn = 'eventTimestamp'): TableSchema {
  return { name, kind: 'partitioned', columns, timeColumn, idColumn: defaultIdColumn(columns), foreignKeys: FK_INSTRUMENT };
}

/** The standard tables of SPEC 3.1, created by `tickscope init`. */
export function standardSchema(): Schema {
  const tables: TableSchema[] = [
    partitioned('Trade', [
      ts('eventTimestamp'), sym('instrumentID'), ts('exchTime'), fl('price'), lg('volume'), sym('conditions'),
      sym('normalisedCondition'), sym('tickDirection'), sym('tradedExchange'), lg('sequenceNumber'), lg('accVol'),
      lg('tickCount'), sym('executionID'), sym('srcSys'),
    ]),
    partitioned('Quote', [
      ts('eventTimestamp'), sym('instrumentID'), ts('exchTime'), fl('bidPrice'), lg('bidSize'), fl('askPrice'),
      lg('askSize'), sym('exchangeID'), sym('srcSys'),
    ]),
    partitioned('OrderbookSnapshots', [
      ts('eventTimestamp'), sym('instrumentID'), sym('exchangeID'), { name: 'bidPrice', type: 'float[]' },
      { name: 'bidSize', type: 'long[]' }, { name: 'bidCount', type: 'long[]' }, lg('totalBidSize'),
      { name: 'askPrice', type: 'float[]' }, { name: 'askSize', type: 'long[]' }, { name: 'askCount', type: 'long[]' },
      lg('totalAskSize'), sym('srcSys'),
    ]),
    partitioned('OrderbookUpdates', [
      ts('eventTimestamp'), sym('instrumentID'), sym('exchangeID'), sym('side'), sym('action'), lg('level'),
      fl('price'), lg('size'), lg('orderCount'), lg('sequenceNumber'), sym('srcSys'),
    ]),
    partitioned('TradeCanCor', [
      ts('eventTimestamp'), sym('instrumentID'), sym('executionID'), sym('action'), fl('price'), lg('volume'),
    ]),
    partitioned('Order', [
      ts('eventTimestamp'), sym('instrumentID'), sym('orderID'), sym('eventType'), sym('side'), lg('orderQty'),
      fl('limitPrice'), lg('lastQty'), fl('lastPx'), sym('algoStrategy'), sym('executingBrokerCode'),
      sym('exchangeID'), sym('MIC'), sym('ISIN'), sym('tradingVenueCode'), sym('currency'),
    ]),
    partitioned(
      'OrderAnalytics',
      [
        ts('strikeTime'), sym('instrumentID'), sym('orderID'), sym('algoStrategy'), { name: 'tradeDate', type: 'date' },
        sym('exchangeID'), sym('MIC'), sym('ISIN'), sym('tradingVenueCode'), sym('executingBrokerCode'),
        lg('placementQty'), sym('side'), sym('currency'), fl('limitPrice'), ts('orderCompletedTime'),
        lg('executedQty'), lg('numFills'), fl('avgExecPrice'), fl('executedValue'),
        { name: 'orderCompletion', type: 'boolean' }, fl('durationMins'), fl('arrivalBidPrice'),
        fl('arrivalAskPrice'), fl('arrivalMid'), fl('arrivalSpreadBPS'), fl('endBidPrice'), fl('endAskPrice'),
        fl('endMid'), fl('intervalVWAP'), lg('intervalVolume'), fl('intervalSpreadBPS'), fl('participationRate'),
        fl('executionShortfall'), fl('vwapSlippage'), fl('strikeToEndReturn'), fl('reversionReturn_300'),
        fl('reversionReturn_1800'),
      ],
      'strikeTime',
    ),
    {
      name: 'Instrument',
      kind: 'reference',
      key: 'instrumentID',
      idColumn: 'instrumentID',
      foreignKeys: {},
      columns: [
        sym('instrumentID'), { name: 'instrumentName', type: 'string' }, sym('ISIN'), sym('MIC'), sym('exchangeID'),
        sym('currency'), sym('sector'), lg('lotSize'), fl('tickSize'),
      ],
    },
    {
      name: 'ExchangeHolidayCal',
      kind: 'reference',
      idColumn: 'exchangeID',
      foreignKeys: {},
      columns: [sym('exchangeID'), { name: 'date', type: 'date' }, { name: 'description', type: 'string' }],
    },
  ];
  return { tables: new Map(tables.map((t) => [t.name, t])) };
}

/** The left-most symbol column (INTERFACE 2), or the first column when there is none. */
export function defaultIdColumn(columns: readonly ColumnDef[]): string {
  return (columns.find((c) => c.type === 'symbol') ?? columns[0])?.name ?? '';
}

interface SchemaFile {
  format: 1;
  tables: Array<{
    name: string;
    kind: 'partitioned' | 'reference';
    timeColumn?: string;
    idColumn?: string;
    key?: string;
    columns: Array<{ name: string; type: ColumnType }>;
    foreignKeys?: Record<string, string>;
  }>;
}

/** The JSON document for schema.json. */
export function schemaToJson(schema: Schema): SchemaFile {
  return {
    format: 1,
    tables: [...schema.tables.values()].map((t) => ({
      name: t.name,
      kind: t.kind,
      ...(t.timeColumn ? { timeColumn: t.timeColumn } : {}),
      idColumn: t.idColumn,
      ...(t.key ? { key: t.key } : {}),
      columns: t.columns.map((c) => ({ name: c.name, type: c.type })),
      foreignKeys: { ...t.foreignKeys },
    })),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and validates schema.json; every problem names its table and field. */
export function schemaFromJson(doc: unknown, where = 'schema.json'): Schema {
  const fail = (msg: string): never => {
    throw new TickscopeError('badSchema', `${where}: ${msg}`);
  };
  if (!isRecord(doc) || !Array.isArray(doc['tables'])) fail('expected an object with a "tables" array');
  const tables = new Map<string, TableSchema>();
  for (const raw of (doc as { tables: unknown[] }).tables) {
    if (!isRecord(raw) || typeof raw['name'] !== 'string' || !raw['name']) fail('every table needs a "name"');
    const t = raw as Record<string, unknown> & { name: string };
    const at = `table ${t.name}`;
    if (tables.has(t.name)) fail(`${at} is declared twice`);
    if (t['kind'] !== 'partitioned' && t['kind'] !== 'reference') fail(`${at}: kind must be "partitioned" or "reference"`);
    if (!Array.isArray(t['columns']) || t['columns'].length === 0) fail(`${at}: "columns" must be a non-empty array`); // not an argument: schema.json's key
    const columns: ColumnDef[] = [];
    for (const c of t['columns'] as unknown[]) { // not an argument: schema.json's key
      if (!isRecord(c) || typeof c['name'] !== 'string' || !c['name']) fail(`${at}: every column needs a "name"`);
      const col = c as { name: string; type: unknown };
      if (!COLUMN_TYPES.includes(col.type as ColumnType)) {
        fail(`${at}: column ${col.name} has type ${JSON.stringify(col.type)}; expected one of ${COLUMN_TYPES.join(', ')}`);
      }
      if (columns.some((d) => d.name === col.name)) fail(`${at}: column ${col.name} is declared twice`);
      columns.push({ name: col.name, type: col.type as ColumnType });
    }
    const has = (name: unknown, type?: ColumnType): boolean =>
      columns.some((c) => c.name === name && (!type || c.type === type));
    const kind = t['kind'] as 'partitioned' | 'reference';
    const timeColumn = t['timeColumn'];
    if (kind === 'partitioned' && !has(timeColumn, 'timestamp')) {
      fail(`${at}: timeColumn ${JSON.stringify(timeColumn)} must name a timestamp column`);
    }
    const idColumn = t['idColumn'] ?? defaultIdColumn(columns);
    if (!has(idColumn)) fail(`${at}: idColumn ${JSON.stringify(idColumn)} is not a column`);
    if (t['key'] !== undefined && !has(t['key'])) fail(`${at}: key ${JSON.stringify(t['key'])} is not a column`);
    const fks = t['foreignKeys'] ?? {};
    if (!isRecord(fks)) fail(`${at}: foreignKeys must be an object of column -> table`);
    for (const [col, ref] of Object.entries(fks as Record<string, unknown>)) {
      if (!has(col)) fail(`${at}: foreign key column ${col} is not a column`);
      if (typeof ref !== 'string') fail(`${at}: foreign key ${col} must name a table`);
    }
    tables.set(t.name, {
      name: t.name,
      kind,
      columns,
      ...(kind === 'partitioned' ? { timeColumn: timeColumn as string } : {}),
      idColumn: idColumn as string,
      ...(typeof t['key'] === 'string' ? { key: t['key'] } : {}),
      foreignKeys: fks as Record<string, string>,
    });
  }
  for (const t of tables.values()) {
    for (const [col, ref] of Object.entries(t.foreignKeys)) {
      const target = tables.get(ref);
      if (!target || target.kind !== 'reference' || !target.key) {
        fail(`table ${t.name}: foreign key ${col} references ${ref}, which is not a reference table with a key`);
      }
    }
  }
  return { tables };
}
