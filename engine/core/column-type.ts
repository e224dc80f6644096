/** The column types of a Tickscope table (SPEC 2). A pure type file: the renderer sees it. */

export type ColumnType =
  | 'timestamp'
  | 'date'
  | 'timespan'
  | 'symbol'
  | 'string'
  | 'float'
  | 'long'
  | 'int'
  | 'boolean'
  | 'float[]'
  | 'long[]';

export const COLUMN_TYPES: readonly ColumnType[] = [
  'timestamp',
  'date',
  'timespan',
  'symbol',
  'string',
  'float',
  'long',
  'int',
  'boolean',
  'float[]',
  'long[]',
];
