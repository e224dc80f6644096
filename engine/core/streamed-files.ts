/**
 * Files a query opens for the columns it leaves to the streaming renderer to read (core/table.ts,
 * DeferredColumn), open until whoever streams the result closes them: a write that replaces a
 * partition meanwhile does not take the rows away (an open file keeps its bytes). A query finds them
 * through its hooks (core/query-hooks.ts, streamedFiles); dictionaries take them too (core/dict.ts).
 */
export interface StreamedFiles {
  /** Opens a partition file for reading (a missing file: storage's FolderGoneError). */
  open(path: string): number;
}
