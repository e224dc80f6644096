/**
 * The depth ladder beside the top-of-book series: the book of the chosen group at the bucket under
 * the crosshair (or the pinned one), read with getTicks plotOrderbookSnapshots over that bucket's
 * window. Hover is debounced and answers are cached per group and bucket, so moving back is instant.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { backend } from '../../backend';
import { ladderColumns, ladderModel, type Snapshot, snapshotOf } from '../../ladder/ladder-model';
import { ladderArgs } from '../../stats/ladder-link';
import { callWithView, useStore } from '../../store/store';
import { fmtPrice, fmtSpread, LadderView } from '../ladder-view';

const HOVER_DEBOUNCE_MS = 120;

export interface BucketLadderProps {
  readonly stats: Readonly<Record<string, unknown>>;
  /** The group's identifier, or null when the groups are not identifiers. */
  readonly id: string | null;
  /** The bucket label (UTC ns), or null for the whole window. */
  readonly label: bigint | null;
  /** The bucket's label text, for the header. */
  readonly labelText: string;
  /** Asked by a click or a key (no debounce). */
  readonly immediate: boolean;
}

type Answer = { readonly snap: Snapshot | null } | { readonly error: string };

/** Reads the book a getTicks body selects (`ticksCall`: its call name; null: no snapshot in the window). */
async function readBook(ticksCall: string, args: Record<string, unknown>): Promise<Snapshot | null> {
  const r = await backend().run(ticksCall, args);
  if (!r.ok) throw new Error(`error ${r.header.ac}: ${r.header.ai}`);
  const cols = ladderColumns(r.columns, r.timeColumn, r.idColumn);
  if (!cols || r.rows === 0) return null;
  const page = await backend().page(r.resultId, 0, 1);
  return page.rows[0] ? snapshotOf(page.rows[0], cols, 0) : null;
}

/** The ladder panel linked to the crosshair. */
export function BucketLadder(p: BucketLadderProps): React.JSX.Element {
  const cache = useRef(new Map<string, Answer>());
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [loading, setLoading] = useState(false);
  const ticksCall = useStore((s) => callWithView(s.info, 'ticks'));
  const args = useMemo(() => (p.id === null ? null : ladderArgs(p.stats, p.id, p.label)), [p.stats, p.id, p.label]);
  const key = args ? JSON.stringify(args) : '';

  useEffect(() => cache.current.clear(), [p.stats]);

  useEffect(() => {
    if (!args || !ticksCall) return undefined;
    const hit = cache.current.get(key);
    if (hit) {
      setAnswer(hit);
      setLoading(false);
      return undefined;
    }
    let cancelled = false;
    setLoading(true);
    const timer = setTimeout(
      () => {
        readBook(ticksCall, args)
          .then((snap): Answer => ({ snap }))
          .catch((e: unknown): Answer => ({ error: (e as Error).message }))
          .then((a) => {
            if ('snap' in a) cache.current.set(key, a);
            if (cancelled) return;
            setAnswer(a);
            setLoading(false);
          });
      },
      p.immediate ? 0 : HOVER_DEBOUNCE_MS,
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [key, args, ticksCall, p.immediate]);

  const snap = answer && 'snap' in answer ? answer.snap : null;
  const model = useMemo(() => (snap ? ladderModel(snap) : null), [snap]);
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Keep the inside of the book (the mid marker) in view as the crosshair moves.
    const el = scroller.current;
    const mid = el?.querySelector<HTMLElement>('[data-testid="ladder-mid"]');
    if (el && mid) el.scrollTop = mid.offsetTop - el.clientHeight / 2;
  }, [model]);
  return (
    <aside className="bucket-ladder" aria-label="Depth ladder at the crosshair" data-testid="bucket-ladder">
      <div className="bucket-ladder-head">
        <span className="ladder-id">{p.id ?? '—'}</span>
        <span className="muted" data-testid="bucket-ladder-bucket" title="the bucket under the crosshair">
          {p.labelText}
        </span>
        {loading && <span className="muted">…</span>}
      </div>
      {snap && model && (
        <div className="bucket-ladder-quote">
          <span data-testid="bucket-ladder-time" className="muted" title="time of the snapshot">
            {snap.time}
          </span>
          <span>
            <span className="bid-text" data-testid="bucket-ladder-bid">
              {fmtPrice(snap.bestBid, model.decimals)}
            </span>{' '}
            / <span className="ask-text">{fmtPrice(snap.bestAsk, model.decimals)}</span>
          </span>
          <span className="muted">spread {fmtSpread(snap.spread, model.spreadBps, model.decimals)}</span>
        </div>
      )}
      <div className="ladder-scroll" ref={scroller}>
        {p.id === null ? (
          <div className="muted ladder-note">Group by the identifier to see the book at the crosshair.</div>
        ) : answer && 'error' in answer ? (
          <div className="error-text ladder-note">{answer.error}</div>
        ) : snap && model ? (
          <LadderView snapshot={snap} model={model} />
        ) : (
          <div className="muted ladder-note">{answer ? 'No snapshot in this bucket.' : 'Move the crosshair over a bucket.'}</div>
        )}
      </div>
    </aside>
  );
}
