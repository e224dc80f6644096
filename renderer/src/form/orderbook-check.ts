/**
 * The orderbook modes' requirements (INTERFACE 4.1.6, SPEC 4), checked against the form so the select
 * can explain them and warn before the engine answers an error.
 */
import { ARG, type TableInfo } from '../../../engine/contract';

/** The argument a fix changes: `ref` (a name added to it) or `table` (set). */
export type FixArg = typeof ARG.ref.name | typeof ARG.table.name;

export interface OrderbookProblem {
  readonly text: string;
  /** A one-click fix of an argument. */
  readonly fix?: { readonly arg: FixArg; readonly value: string; readonly label: string };
}

export interface OrderbookCheck {
  /** What the mode needs, in one line. */
  readonly needs: string;
  /** What the current form lacks (empty when it meets the needs). */
  readonly problems: readonly OrderbookProblem[];
}

const hasBookColumns = (t: TableInfo): boolean =>
  ['bidPrice', 'askPrice'].every((n) => t.columns.some((c) => c.name === n && c.type === 'float[]'));

/** Needs and problems of an orderbook mode for the chosen table and ref list; null for no mode. */
export function orderbookCheck(mode: string, table: TableInfo | undefined, ref: readonly string[]): OrderbookCheck | null {
  const problems: OrderbookProblem[] = [];
  const needRef = (): void => {
    if (!ref.includes('Instrument')) problems.push({ text: 'needs ref Instrument', fix: { arg: ARG.ref.name, value: 'Instrument', label: 'add Instrument to ref' } });
  };
  const needTable = (name: string, text: string): void => {
    problems.push({ text, fix: { arg: ARG.table.name, value: name, label: `use ${name}` } });
  };
  switch (mode) {
    case 'plotOrderbookSnapshots':
      if (table && table.name !== 'OrderbookSnapshots' && !hasBookColumns(table)) {
        needTable('OrderbookSnapshots', `${table.name} has no bidPrice/askPrice level lists`);
      }
      return { needs: 'table OrderbookSnapshots (or bidPrice/askPrice list columns); gives the latest snapshot per identifier with bestBid, bestAsk, spread, midPoint, maxSize', problems };
    case 'instrumentNames':
      needRef();
      return { needs: 'ref Instrument; adds instrumentName after the identifier column', problems };
    case 'orderbookUpdatesRefData':
      if (table && table.name !== 'OrderbookUpdates') needTable('OrderbookUpdates', `meant for table OrderbookUpdates, not ${table.name}`);
      needRef();
      return { needs: 'table OrderbookUpdates and ref Instrument; replaces identifiers by instrument names', problems };
    default:
      return null;
  }
}
