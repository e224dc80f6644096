/**
 * The depth ladder of one snapshot, drawn from its model: prices descending, bid sizes as bars on the
 * left and ask sizes on the right (scaled by maxSize), best bid and ask highlighted, the mid marked
 * between them with the spread. Pure props: it renders the same on the server (tests, fixtures).
 */
import { Fragment } from 'react';
import type { LadderModel, Snapshot } from '../ladder/ladder-model';

const sizeFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });
const fmtSize = (n: number | undefined): string => (n === undefined ? '' : sizeFmt.format(n));

/** A price with the snapshot's decimals. */
export const fmtPrice = (n: number | null, decimals: number): string => (n === null ? '—' : n.toFixed(decimals));

/** Basis points with two decimals below 10, else one. */
const fmtBps = (bps: number): string => `${bps.toFixed(bps < 10 ? 2 : 1)} bps`;

/** The spread as `0.01 · 0.59 bps`. */
export function fmtSpread(spread: number | null, bps: number | null, decimals: number): string {
  if (spread === null) return '—';
  return `${spread.toFixed(decimals)}${bps === null ? '' : ` · ${fmtBps(bps)}`}`;
}

/**
 * The mid marker between the best ask and bid: the spread at the left, the mid price in the price
 * column, the spread in bps at the right (each half spans the count and size columns, so a narrow
 * ladder still shows them whole).
 */
function MidRow({ s, m }: { readonly s: Snapshot; readonly m: LadderModel }): React.JSX.Element {
  const label = m.crossed ? 'crossed' : 'spread';
  return (
    <div className={`lrow mid ${m.crossed ? 'crossed' : ''}`} data-testid="ladder-mid" title={`${label} ${fmtSpread(s.spread, m.spreadBps, m.decimals)}, mid ${fmtPrice(s.midPoint, m.decimals + 1)}`}>
      <span className="mid-text">
        <i>
          {label} {s.spread === null ? '—' : s.spread.toFixed(m.decimals)}
        </i>
      </span>
      <span className="px mid-px" title="midPoint">
        {fmtPrice(s.midPoint, m.decimals + 1)}
      </span>
      <span className="mid-text right">
        <i>{m.spreadBps === null ? 'mid' : fmtBps(m.spreadBps)}</i>
      </span>
    </div>
  );
}

/** The ladder body (head, price lines, mid marker, totals). */
export function LadderView({ snapshot: s, model: m }: { readonly snapshot: Snapshot; readonly model: LadderModel }): React.JSX.Element {
  const hasCounts = m.rows.some((r) => r.bid?.count != null || r.ask?.count != null);
  return (
    <div className={`ladder ${hasCounts ? '' : 'no-counts'}`} data-testid="ladder" role="table" aria-label={`Depth ladder ${s.id}`}>
      <div className="lrow lhead" role="row">
        <span title="orders at the level">ord</span>
        <span className="right">bid size</span>
        <span className="px">price</span>
        <span>ask size</span>
        <span className="right" title="orders at the level">ord</span>
      </div>
      {m.rows.map((r, i) => (
        <Fragment key={r.price}>
          {i === m.midAt && <MidRow s={s} m={m} />}
          <div
            role="row"
            className={['lrow', r.ask && 'ask', r.bid && 'bid', (r.best === 'bid' || r.best === 'both') && 'best-bid', (r.best === 'ask' || r.best === 'both') && 'best-ask'].filter(Boolean).join(' ')}
            data-testid="ladder-row"
          >
            <span className="cnt">{r.bid?.count ?? ''}</span>
            <span className="size bid-size" title={r.bid ? `bid ${fmtSize(r.bid.size)} at ${fmtPrice(r.price, m.decimals)}` : undefined}>
              {r.bid && <i style={{ width: `${(r.bidBar * 100).toFixed(1)}%` }} />}
              <b>{fmtSize(r.bid?.size)}</b>
            </span>
            <span className="px">{fmtPrice(r.price, m.decimals)}</span>
            <span className="size ask-size" title={r.ask ? `ask ${fmtSize(r.ask.size)} at ${fmtPrice(r.price, m.decimals)}` : undefined}>
              {r.ask && <i style={{ width: `${(r.askBar * 100).toFixed(1)}%` }} />}
              <b>{fmtSize(r.ask?.size)}</b>
            </span>
            <span className="cnt right">{r.ask?.count ?? ''}</span>
          </div>
        </Fragment>
      ))}
      {m.midAt === m.rows.length && <MidRow s={s} m={m} />}
      <div className="lrow lfoot" role="row">
        <span />
        <span className="right" title="total bid size">
          Σ {fmtSize(s.totalBid)}
        </span>
        <span className="px imbalance" title="bid share of the total size">
          {m.bidShare === null ? '' : <i style={{ width: `${(m.bidShare * 100).toFixed(1)}%` }} />}
        </span>
        <span title="total ask size">Σ {fmtSize(s.totalAsk)}</span>
        <span />
      </div>
    </div>
  );
}
