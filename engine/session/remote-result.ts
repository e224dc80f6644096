/**
 * A remote gateway's Arrow answer as a held result (service/remote.ts asks it; the executor's worker
 * that will hold it decodes it): its columns read as ours, rendered in the outputTZ the user asked.
 */
import { type Table as ArrowTable, tableFromIPC, Type, type Vector } from 'apache-arrow';
import type { Header } from '../contract.js';
import type { ColumnType } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import { checkArrowFraming } from '../storage/arrow-check.js';
import type { QueryResult } from '../core/result.js';
import { Table } from '../core/table.js';
import { requestInfo } from '../output/envelope.js';
import { fromArrow } from '../storage/import.js';

/** What the worker needs to turn a remote's Arrow answer into a held result. */
export interface RemoteResultMeta {
  readonly api: string;
  readonly outputTZ: string;
  readonly tableName: string;
  readonly timeColumn: string | null;
  readonly idColumn: string;
  readonly groupColumns?: readonly string[];
  /** the remote's header (its corr, its window in UTC) */
  readonly header: Header | null;
}

/** Our column type of an Arrow field. */
function columnType(v: Vector): ColumnType {
  const t = v.type;
  switch (t.typeId) {
    case Type.Timestamp:
      return 'timestamp';
    case Type.Duration:
      return 'timespan';
    case Type.Int:
      return (t as unknown as { bitWidth: number }).bitWidth === 64 ? 'long' : 'int';
    case Type.Float:
      return 'float';
    case Type.Bool:
      return 'boolean';
    case Type.Date:
      return 'date';
    case Type.Dictionary:
      return 'symbol';
    case Type.Utf8:
    case Type.LargeUtf8:
      return 'string';
    case Type.List:
      return 'float[]';
    default:
      throw new TickscopeError('badRequest', `the remote answered a column of Arrow type ${String(t)}, which Tickscope does not read`);
  }
}

/** An instant of the remote's header (UTC text, 9 fractional digits) in ns. */
function headerInstant(text: string | undefined): bigint | undefined {
  const m = text ? /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?$/.exec(text) : null;
  if (!m) return undefined;
  return BigInt(Date.parse(`${m[1]}Z`)) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/** A remote's Arrow answer as a result (runs in the worker that will hold it). */
export function remoteResult(bytes: Uint8Array, meta: RemoteResultMeta): { result: QueryResult; req: ReturnType<typeof requestInfo> } {
  let at: ArrowTable;
  try {
    // every length the answer claims checked first: apache-arrow trusts them (and loops on some)
    checkArrowFraming(bytes, 'the answer');
    at = tableFromIPC(bytes);
  } catch (e) {
    throw new TickscopeError('badRequest', `the remote's Arrow answer does not read (${(e as Error).message})`);
  }
  const names = at.schema.fields.map((f) => f.name);
  const columns = names.map((name) => {
    const v = at.getChild(name)!;
    return fromArrow({ name, type: columnType(v) }, v, 'the remote answer');
  });
  const start = headerInstant(meta.header?.startTS);
  const end = headerInstant(meta.header?.endTS);
  const result: QueryResult = {
    table: new Table(names, columns, at.numRows),
    outputTZ: meta.outputTZ,
    ...(start !== undefined && end !== undefined ? { window: { start, end } } : {}),
    tableName: meta.tableName,
    timeColumn: meta.timeColumn,
    idColumn: meta.idColumn,
    ...(meta.groupColumns ? { groupColumns: meta.groupColumns } : {}),
  };
  return { result, req: requestInfo(meta.api, meta.header?.corr) };
}
