/**
 * What `tickscope info` says of a kdb+ table, file by file: each partition's rows, and each column's
 * q type, compression and attribute there, and the partitions where its file is missing (read as
 * nulls). Headers and trailers only: no column is read.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { asTickscopeError } from '../../core/errors.js';
import { VECTOR_TYPE_NAMES } from '../../q/types.js';
import { ALGORITHM_NAMES } from './codecs.js';
import { openColumn } from './column.js';
import { openKdbFile } from './file.js';
import { readColumnNames } from './object.js';
import type { KdbSource } from './source.js';

/** One column of a kdb+ table, over its partitions. */
export interface KdbColumnReport {
  readonly name: string;
  /** q types met (`timespan`, `enum sym (64-bit)`, `anymap`, `float list`), in partition order. */
  readonly qTypes: readonly string[];
  /** Compression met (`none`, `zlib (level 6)`), in partition order. */
  readonly compression: readonly string[];
  /** Attributes met (`p#`, `s#`...; empty: none). */
  readonly attributes: readonly string[];
  /** Partitions (keys) holding no file for it. */
  readonly missingIn: readonly string[];
  /** Files that could not be read, with why. */
  readonly damaged: readonly string[];
}

export interface KdbTableReport {
  /** Rows per partition key (`null` key: a table at the root). */
  readonly rows: ReadonlyArray<{ readonly key: string | null; readonly rows: number }>;
  readonly columns: readonly KdbColumnReport[];
  /** Columns its `.d` lists that no partition has a file for, or of no Tickscope type (left out of the table). */
  readonly leftOut: readonly string[];
}

const ATTRIBUTES: Readonly<Record<number, string>> = { 1: 's#', 2: 'u#', 3: 'p#', 4: 'g#' };

function qTypeName(qType: number, domain: string | undefined, width: number | undefined): string {
  if (qType === 20) return `enum ${domain ?? '?'} (${width === 8 ? '64-bit' : '32-bit'})`;
  if (qType === 77) return 'anymap';
  if (qType > 77) return `${VECTOR_TYPE_NAMES[qType - 77] ?? `type ${qType - 77}`} list`;
  return VECTOR_TYPE_NAMES[qType] ?? `type ${qType}`;
}

const add = (list: string[], v: string): void => {
  if (!list.includes(v)) list.push(v);
};

/** The report of one table of a kdb+ source (by its shown name). */
export function describeKdbTable(source: KdbSource, table: string): KdbTableReport {
  const whole = source.serializedTable(table);
  if (whole) {
    const z = openKdbFile(whole.path, source.readOptions).compression;
    const compression = z ? ALGORITHM_NAMES[z.algorithm] ?? `algorithm ${z.algorithm}` : 'none';
    return {
      rows: [{ key: null, rows: whole.table.length }],
      columns: whole.table.names.map((name, i) => {
        const t = whole.qTypes[i]!;
        return { name, qTypes: [t === 0 ? 'general list' : qTypeName(t, undefined, undefined)], compression: [compression], attributes: [], missingIn: [], damaged: [] };
      }),
      leftOut: [],
    };
  }
  const schema = source.table(table);
  const folders = source.folders(table);
  const names = schema.columns.map((c) => c.name).filter((n) => n !== 'date' || schema.kind === 'reference');
  const cols = names.map((name) => ({ name, qTypes: [] as string[], compression: [] as string[], attributes: [] as string[], missingIn: [] as string[], damaged: [] as string[] }));
  const rows: Array<{ key: string | null; rows: number }> = [];
  for (const f of folders) {
    let n: number | undefined;
    for (const c of cols) {
      const path = join(f.dir, c.name);
      if (!existsSync(path)) {
        c.missingIn.push(f.key ?? '(root)');
        continue;
      }
      try {
        const file = openColumn(path, { ...source.readOptions, domain: source.domainFiles, name: `${table}.${c.name}` });
        const l = file.layout;
        n ??= file.rows;
        add(c.qTypes, qTypeName(file.qType, l.kind === 'enum' ? l.domain : undefined, l.kind === 'enum' ? l.width : undefined));
        const z = file.bytes.compression;
        add(c.compression, z ? `${ALGORITHM_NAMES[z.algorithm] ?? `algorithm ${z.algorithm}`}${z.algorithm > 1 ? ` (level ${z.level})` : ''}` : 'none');
        const attr = ATTRIBUTES[l.attr];
        if (attr) add(c.attributes, attr);
      } catch (e) {
        c.damaged.push(`${path}: ${asTickscopeError(e).message}`);
      }
    }
    rows.push({ key: f.key, rows: n ?? 0 });
  }
  const listed = new Set<string>();
  for (const f of folders) {
    try {
      for (const c of readColumnNames(join(f.dir, '.d'), source.readOptions)) listed.add(c);
    } catch {
      // a damaged .d was said when the table was opened
    }
  }
  return { rows, columns: cols, leftOut: [...listed].filter((c) => !names.includes(c)) };
}
