/**
 * What getTicks and getStats decode alike (INTERFACE 4.1, 4.2: getStats takes getTicks's arguments):
 * the table, zones, window, identifiers, time column, slices, references, orderbook mode, and the
 * row predicate of idList, filterRule, filter and refFilter; and the selection spec built from them.
 */
import { scratchInt32 } from '../../core/arena.js';
import { TickscopeError } from '../../core/errors.js';
import { currentShard, inShard } from '../../core/query-hooks.js';
import type * as ARG from '../../registry/args.js';
import type { ArgsFor } from '../../registry/decode.js';
import type { Source } from '../../storage/source.js';
import { columnOf, type TableSchema } from '../../storage/schema.js';
import { andPredicates, compileClauses, type Predicate } from '../filter/compile.js';
import { type OrderbookMode, snapshotColumns } from '../ticks/orderbook.js';
import { type RefTable, refFilterPredicate, refTable } from '../ticks/ref.js';
import { type Window, windowArg, zoneArg } from '../window.js';
import { checkColumn, filterPredicate, filterRulePredicate, mappedIds, sliceArg, timeColumnArg } from './args.js';
import type { SelectSpec } from './select.js';

export interface QueryBase {
  readonly t: TableSchema;
  readonly inputTZ: string;
  readonly outputTZ: string;
  readonly window: Window;
  readonly idList: readonly string[] | undefined;
  /** timeCol, when given */
  readonly timeColumn: string | undefined;
  readonly slice: ReturnType<typeof sliceArg>;
  readonly refs: readonly RefTable[];
  readonly orderbook: OrderbookMode | undefined;
  /** the level-list columns read for plotOrderbookSnapshots */
  readonly levelColumns: readonly string[];
  readonly instrumentRef: RefTable | undefined;
  /** the selection spec of these arguments (without order or CanCor) */
  readonly select: SelectSpec;
}

/** The arguments the shared selection reads (getTicks and getStats take them all; the order summary reads it widened). */
export type SelectArg =
  | typeof ARG.table | typeof ARG.startTS | typeof ARG.endTS | typeof ARG.inputTZ | typeof ARG.outputTZ | typeof ARG.idList | typeof ARG.idCol
  | typeof ARG.idMapping | typeof ARG.filter | typeof ARG.filterRule | typeof ARG.timeCol | typeof ARG.temporality | typeof ARG.slice
  | typeof ARG.ref | typeof ARG.refFilter | typeof ARG.orderbook;

/** Decodes and checks the shared arguments, in a fixed order so the first wrong one is reported. */
export function queryBase(db: Source, args: ArgsFor<SelectArg>): QueryBase {
  db.refresh();
  const t = db.table(args.must('table'));
  const inputTZ = zoneArg(args, 'inputTZ');
  const outputTZ = zoneArg(args, 'outputTZ');
  const window = windowArg(args, inputTZ);
  const idCol = args.get('idCol') ?? t.idColumn;
  checkColumn(t, 'idCol', idCol);
  // one part of a split query reads (and racks) only the identifiers of its shard
  const shard = currentShard();
  const givenIds = mappedIds(db, args);
  const idList = shard && givenIds ? givenIds.filter((id) => inShard(shard, id)) : givenIds;
  const timeColumn = timeColumnArg(t, args);
  const slice = sliceArg(args);
  const refs = (args.get('ref') ?? []).map((name) => refTable(db, t, name, 'ref'));
  const orderbook = args.get('orderbook') as OrderbookMode | undefined;
  const levelColumns = orderbook === 'plotOrderbookSnapshots' ? snapshotColumns(t) : [];
  const instrumentRef = refs.find((r) => r.schema.name === 'Instrument');
  if ((orderbook === 'instrumentNames' || orderbook === 'orderbookUpdatesRefData') && !instrumentRef) {
    throw new TickscopeError('requirement', `orderbook: ${orderbook} needs ref Instrument (add "ref":["Instrument"]) to read instrument names from`);
  }
  // idList on the stored identifier column is a binary search in the layout; elsewhere a predicate
  const useRanges = idList !== undefined && idCol === t.idColumn && columnOf(t, idCol)?.type === 'symbol' && t.kind === 'partitioned';
  const idPredicate = idList && !useRanges ? compileClauses([{ fn: 'in', column: idCol, value: idList, source: idList }], t, inputTZ, 'idList') : undefined;
  const refFilter = args.get('refFilter');
  const predicate: Predicate | undefined = andPredicates([
    idPredicate,
    filterRulePredicate(db, t, args),
    filterPredicate(t, args, inputTZ),
    refFilter === undefined ? undefined : refFilterPredicate(db, t, refFilter, inputTZ),
  ]);
  const select: SelectSpec = {
    table: t,
    window,
    inputTZ,
    timeColumn: timeColumn ?? '',
    ...(slice ? { slice } : {}),
    ...(useRanges ? { ids: idList } : {}),
    ...(shard && (shard.lo !== null || shard.hi !== null) ? { idRange: shard } : {}),
    ...(shard?.from !== undefined && shard.to !== undefined ? { timeRange: [shard.from, shard.to] as const } : {}),
    ...(predicate ? { predicate } : {}),
    buffer: db.config.timeColBuffer,
    alloc: scratchInt32,
  };
  return { t, inputTZ, outputTZ, window, idList, timeColumn, slice, refs, orderbook, levelColumns, instrumentRef, select };
}
