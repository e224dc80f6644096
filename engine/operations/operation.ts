/** An operation as the engine holds it: its declaration (data the app and the docs receive) and its implementation. */
import type { QueryResult } from '../ops/result.js';
import type { DecodedArgs } from '../registry/decode.js';
import type { OperationSpec } from '../registry/types.js';
import type { Database } from '../storage/database.js';

export interface Operation extends OperationSpec {
  /** Runs it against one database with its decoded arguments (defaults applied, declared checks passed). */
  run(db: Database, args: DecodedArgs): QueryResult;
}

/** The declaration alone, as data (what getMeta, the app's forms and the docs receive). */
export function specOf(op: Operation): OperationSpec {
  const { run: _run, ...spec } = op;
  return spec;
}
