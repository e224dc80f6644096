/**
 * The stats chart's legend over its top-left corner: the bucket under the crosshair (or pinned, or
 * the last one), then one line per shown group with its colour and its values. It floats over the
 * chart, so nothing moves as the crosshair does; with more groups than fit, the hovered one stays
 * among the lines and the rest are counted. Folded, it keeps only the hovered group's line.
 */
import { type ReadoutLine, visibleLines } from '../../stats/readout';

export interface StatsReadoutProps {
  readonly lines: readonly ReadoutLine[];
  readonly colours: readonly string[];
  /** Pane 0's title ("price", "top of book"). */
  readonly title: string;
  /** The bucket's label. */
  readonly bucket: string;
  readonly pinned: boolean;
  /** The group whose series is under the pointer. */
  readonly hovered: number | null;
  /** Group lines that fit. */
  readonly maxLines: number;
  /** Only the hovered (or first) group's line, so the chart shows whole. */
  readonly folded: boolean;
  readonly onFold: (folded: boolean) => void;
}

/** The legend. */
export function StatsReadout(p: StatsReadoutProps): React.JSX.Element {
  const shown = visibleLines(p.lines, p.folded ? 1 : p.maxLines, p.hovered);
  const more = p.lines.length - shown.length;
  return (
    <div className="chart-readout stats-readout" data-testid="stats-readout" aria-live="off">
      <div className="readout-line readout-head">
        {p.title && <span className="pane-title">{p.title}</span>}
        <span className="readout-bucket" data-testid="stats-bucket">
          {p.pinned && <span className="pin">pinned </span>}
          {p.bucket}
        </span>
        {p.lines.length > 1 && (
          <button type="button" className="readout-fold" data-testid="stats-readout-fold" aria-expanded={!p.folded} title={p.folded ? 'Show every group’s values' : 'Show only the hovered group’s values'} onClick={() => p.onFold(!p.folded)}>
            {p.folded ? `▾ ${p.lines.length} groups` : '▴'}
          </button>
        )}
      </div>
      {shown.map((line) => (
        <div key={line.group} className={`readout-line ${line.group === p.hovered ? 'hovered' : ''}`} data-testid="stats-readout-line" data-group={line.label}>
          <span className="readout-group" style={{ color: p.colours[line.group] }}>
            <i style={{ background: p.colours[line.group] }} />
            {line.label}
          </span>
          {line.items.map((it) => (
            <span key={it.name} data-col={it.column} data-name={it.name} data-exact={it.exact} className={it.clipped ? 'clipped' : undefined} title={it.clipped ? `${it.exact}: drawn clipped at the top of the volume scale` : it.exact}>
              <span className="muted">{it.name}</span> <span className="v">{it.text}</span>
              {it.clipped && <span className="clip-tag"> clipped</span>}
            </span>
          ))}
        </div>
      ))}
      {more > 0 && !p.folded && (
        <div className="readout-line readout-more">
          +{more} more group{more === 1 ? '' : 's'} (hover one, or hide some in the legend)
        </div>
      )}
    </div>
  );
}
