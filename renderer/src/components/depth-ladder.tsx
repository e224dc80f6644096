/**
 * The depth ladder panel for results with orderbook level lists: the latest snapshot of the chosen
 * identifier (what plotOrderbookSnapshots returns, one row per identifier), or the snapshot of the
 * grid's selected row (raw OrderbookSnapshots rows: arrow keys in the grid step through the book).
 * Rows come from the backend's pages as text.
 */
import { useEffect, useMemo, useState } from 'react';
import { backend } from '../backend';
import { useKeptId } from '../chart/kept-choice';
import { type LadderColumns, ladderModel, latestById, type Snapshot, snapshotOf } from '../ladder/ladder-model';
import { useStore } from '../store/store';
import { fmtPrice, fmtSpread, LadderView } from './ladder-view';

/** Results up to this many rows are read whole (identifier picker over every snapshot). */
const READ_ALL = 2000;

export interface DepthLadderProps {
  readonly cols: LadderColumns;
  readonly onShowChart: () => void;
}

/** The ladder panel bound to the store's result, selection and instrument choice. */
export function DepthLadder({ cols, onShowChart }: DepthLadderProps): React.JSX.Element {
  const result = useStore((s) => s.result);
  const selectedRow = useStore((s) => s.selectedRow);
  // the instrument on screen survives a re-run, as on the tick chart
  const chosenId = useKeptId();
  const setChart = useStore((s) => s.setChart);
  const selectRow = useStore((s) => s.selectRow);
  const [all, setAll] = useState<readonly Snapshot[] | null>(null);
  const [one, setOne] = useState<Snapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const readAll = result !== null && result.rows <= READ_ALL;

  useEffect(() => {
    setAll(null);
    setError(null);
    if (!result || !readAll || result.rows === 0) return undefined;
    let cancelled = false;
    backend()
      .page(result.resultId, 0, result.rows)
      .then((p) => !cancelled && setAll(p.rows.map((cells, i) => snapshotOf(cells, cols, p.offset + i))))
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [result, readAll, cols]);

  const wanted = readAll || !result ? null : (selectedRow ?? result.rows - 1);
  useEffect(() => {
    setOne(null);
    if (!result || wanted === null) return undefined;
    let cancelled = false;
    backend()
      .page(result.resultId, wanted, 1)
      .then((p) => !cancelled && p.rows[0] && setOne(snapshotOf(p.rows[0], cols, wanted)))
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [result, wanted, cols]);

  const latest = useMemo(() => (all ? latestById(all) : null), [all]);
  const snap: Snapshot | null | undefined = all
    ? selectedRow !== null
      ? all[selectedRow]
      : (latest?.get(chosenId ?? '') ?? latest?.values().next().value)
    : one;
  const model = useMemo(() => (snap ? ladderModel(snap) : null), [snap]);
  const ids = result?.ids ?? [];

  return (
    <section className="chart-panel ladder-panel" aria-label="Depth ladder">
      <div className="chart-toolbar">
        {readAll && ids.length > 1 && (
          <label>
            {result?.idColumn}
            <select
              data-testid="ladder-id"
              value={snap?.id ?? chosenId ?? ''}
              onChange={(e) => {
                setChart({ id: e.target.value });
                selectRow(null);
              }}
            >
              {ids.map((id) => (
                <option key={id}>{id}</option>
              ))}
            </select>
          </label>
        )}
        {(!readAll || ids.length === 1) && snap && <span className="ladder-id">{snap.id}</span>}
        {snap && model && (
          <>
            <span className="muted" data-testid="ladder-time" title={`snapshot time (row ${snap.row + 1})`}>
              {snap.time}
            </span>
            <span className="quote" title="bestBid / bestAsk">
              <span className="bid-text">{fmtPrice(snap.bestBid, model.decimals)}</span> / <span className="ask-text">{fmtPrice(snap.bestAsk, model.decimals)}</span>
            </span>
            <span className="quote" data-testid="ladder-spread" title={`spread (bestAsk - bestBid), in basis points of the mid ${fmtPrice(snap.midPoint, model.decimals + 1)}`}>
              spread {fmtSpread(snap.spread, model.spreadBps, model.decimals)}
            </span>
          </>
        )}
        {error && <span className="error-text">{error}</span>}
        <span className="spacer" />
        {!readAll && (
          <span className="muted" title="Select grid rows (arrow keys step) to see their snapshots">
            row {(wanted ?? 0) + 1}
          </span>
        )}
        <span className="seg">
          <button type="button" className="on" aria-pressed="true">
            ladder
          </button>
          <button type="button" data-testid="show-chart" onClick={onShowChart}>
            chart
          </button>
        </span>
      </div>
      <div className="ladder-scroll">
        {snap && model ? (
          <LadderView snapshot={snap} model={model} />
        ) : (
          <div className="chart-empty muted">{result?.rows === 0 ? 'No snapshot in the window.' : 'Loading the book…'}</div>
        )}
      </div>
    </section>
  );
}
