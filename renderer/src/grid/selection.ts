/**
 * The grid's row selection: a focus row (the store's selected row, which the chart and the ladder
 * follow) and an anchor, the other end of a shift-extended range; and where each key moves the focus.
 */

/** A range of rows: the anchor stays where the range started, the focus moves. */
export interface RowRange {
  readonly anchor: number;
  readonly focus: number;
}

/** The first and last row of a range. */
export const rangeBounds = (r: RowRange): readonly [number, number] => [Math.min(r.anchor, r.focus), Math.max(r.anchor, r.focus)];

/** Rows a range holds. */
export const rangeSize = (r: RowRange): number => Math.abs(r.focus - r.anchor) + 1;

export interface KeyLike {
  readonly key: string;
  readonly ctrlKey?: boolean;
  readonly metaKey?: boolean;
}

/**
 * The row a key moves the focus to (clamped to the result), or null when the key does not move it:
 * arrows by one, Page Up/Down by `pageRows`, Home/End (with or without Ctrl/Cmd) to the first and
 * last row. With nothing selected, a downward key starts at the first row and an upward one at the last.
 */
export function keyTarget(e: KeyLike, focus: number | null, rows: number, pageRows: number): number | null {
  if (rows <= 0) return null;
  const last = rows - 1;
  const page = Math.max(1, pageRows);
  const clamp = (r: number): number => Math.max(0, Math.min(last, r));
  switch (e.key) {
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'ArrowDown':
      return focus === null ? 0 : clamp(focus + 1);
    case 'ArrowUp':
      return focus === null ? last : clamp(focus - 1);
    case 'PageDown':
      return focus === null ? clamp(page - 1) : clamp(focus + page);
    case 'PageUp':
      return focus === null ? 0 : clamp(focus - page);
    default:
      return null;
  }
}

/** The range after moving the focus: extended from its anchor with Shift, else one row. */
export function moveRange(current: RowRange | null, to: number, extend: boolean): RowRange {
  return extend && current ? { anchor: current.anchor, focus: to } : { anchor: to, focus: to };
}
