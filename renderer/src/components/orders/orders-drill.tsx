/**
 * Drill-down from a summary row: the group's orders (OrderAnalytics rows of the summary's window and
 * filter) in a grid, and the selected order's life on a chart beside it.
 */
import { useCallback, useEffect, useState } from 'react';
import { ARG, type RunResponse } from '../../../../engine/contract';
import { backend } from '../../backend';
import { callWithView, useStore } from '../../store/store';
import { ResultGridView } from '../result-grid';
import { OrderChart, type OrderCells } from './order-chart';

type Ok = Extract<RunResponse, { ok: true }>;

export interface Drill {
  /** The group's label ("AAPL", "IS · Buy"). */
  readonly label: string;
  /** getTicks arguments selecting the group's orders. */
  readonly args: Record<string, unknown>;
}

const num = (s: string | undefined): number | null => (s === undefined || s === '' ? null : Number(s));

export function OrdersDrill({ drill, onClose }: { readonly drill: Drill; readonly onClose: () => void }): React.JSX.Element {
  const ticksCall = useStore((s) => callWithView(s.info, 'ticks'));
  const [orders, setOrders] = useState<Ok | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [row, setRow] = useState<number | null>(null);
  /** The order picked in the grid sorted by a header: a row of that sorted copy. */
  const [sortedPick, setSortedPick] = useState<{ readonly result: Ok; readonly row: number } | null>(null);
  const [order, setOrder] = useState<OrderCells | null>(null);
  // back in the result's order: the chart follows the grid's selection of the result again
  const onSorted = useCallback((sorted: Ok | null) => sorted === null && setSortedPick(null), []);

  useEffect(() => {
    setOrders(null);
    setError(null);
    setRow(null);
    setSortedPick(null);
    setOrder(null);
    if (!ticksCall) return undefined;
    let cancelled = false;
    backend()
      .run(ticksCall, drill.args)
      .then((r) => {
        if (cancelled) return;
        if (r.ok) {
          setOrders(r);
          if (r.rows > 0) setRow(0);
        } else setError(r.header.ai);
      })
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [drill, ticksCall]);

  useEffect(() => {
    const from = sortedPick ?? (orders && row !== null ? { result: orders, row } : null);
    if (!from) return undefined;
    let cancelled = false;
    void backend()
      .page(from.result.resultId, from.row, 1)
      .then((p) => {
        const cells = p.rows[0];
        if (cancelled || !cells) return;
        const at = (name: string): string => cells[from.result.columns.findIndex((c) => c.name === name)] ?? '';
        setOrder({
          orderID: at('orderID'),
          instrumentID: at('instrumentID'),
          side: at('side'),
          strikeTime: at('strikeTime'),
          orderCompletedTime: at('orderCompletedTime'),
          arrivalMid: num(at('arrivalMid')),
          intervalVWAP: num(at('intervalVWAP')),
          placementQty: num(at('placementQty')),
          executedQty: num(at('executedQty')),
        });
      });
    return () => {
      cancelled = true;
    };
  }, [orders, row, sortedPick]);

  return (
    <div
      className="tca-drill"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="tca-drill-head">
        <button type="button" className="link-button" onClick={onClose} title="Back to the distributions (Escape)">
          ← distributions
        </button>
        <span className="tca-chart-title">
          Orders of {drill.label}
          {orders ? ` (${orders.rows.toLocaleString()})` : ''}
        </span>
        <span className="muted">select an order to see its life on the chart</span>
      </div>
      <div className="tca-drill-body">
        {error ? (
          <div className="error-text tca-chart-msg">{error}</div>
        ) : (
          <ResultGridView
            result={orders}
            selectedRow={row}
            selectRow={(r) => {
              setSortedPick(null);
              setRow(r);
            }}
            onSortedSelect={(r, sorted) => setSortedPick({ result: sorted, row: r })}
            onSorted={onSorted}
            label="Orders of the group"
            testId="tca-orders"
          />
        )}
        {order ? <OrderChart order={order} zone={orders?.outputTZ ?? 'UTC'} scope={drill.args[ARG.scope.name]} /> : <div className="muted tca-chart-msg">{orders && orders.rows === 0 ? 'No orders.' : ''}</div>}
      </div>
    </div>
  );
}
