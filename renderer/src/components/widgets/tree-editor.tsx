/**
 * One parse tree in the agg builder: an operator select and its arguments, each a column, a number,
 * the row index or a nested tree (indented under its operator). Problems found locally show under
 * the node they concern. Plain selects and inputs: Tab walks through it all.
 */
import { useState } from 'react';
import { FAMILY_LABELS, OPS, type OpFamily, opInfo } from '../../form/agg-ops';
import { type ArgKind, argKind, blankArg, isNumberText, NULL_LITERALS, type Tree, type TreeArg, type TreeIssue, withOp } from '../../form/agg-tree';
import type { ColumnChoice } from '../../form/schema';
import { ColumnSelect } from './editor-parts';

const FAMILIES: readonly OpFamily[] = ['aggregate', 'elementwise', 'ordered', 'distinct'];

const KINDS: ReadonlyArray<{ kind: ArgKind; label: string; title: string }> = [
  { kind: 'column', label: 'col', title: 'a column of the table' },
  { kind: 'number', label: 'num', title: 'a number' },
  { kind: 'null', label: 'null', title: 'a null: 0n (float) or 0N (long), as in ["?", cond, x, "0n"]' },
  { kind: 'index', label: 'i', title: 'i: the row index (["count","i"] counts rows)' },
  { kind: 'tree', label: 'tree', title: 'a nested tree: an operator over arguments' },
];

const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The operator select, grouped by family, with each operator's meaning as its title. */
export function OpSelect({ value, onChange, label, testId }: { readonly value: string; readonly onChange: (op: string) => void; readonly label: string; readonly testId: string }): React.JSX.Element {
  const known = opInfo(value) !== undefined;
  return (
    <select aria-label={label} data-testid={testId} className={`op-select ${known ? '' : 'invalid'}`} value={value} title={opInfo(value)?.title ?? 'unknown operator'} onChange={(e) => onChange(e.target.value)}>
      {!known && <option value={value}>{value || '(operator)'}</option>}
      {FAMILIES.map((f) => (
        <optgroup key={f} label={FAMILY_LABELS[f]}>
          {OPS.filter((o) => o.family === f).map((o) => (
            <option key={o.op} value={o.op} title={o.title}>
              {o.op}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}

/** A number typed freely: the tree takes it once it reads as a number. */
function NumberLeaf({ value, onChange, label, testId }: { readonly value: string; readonly onChange: (v: string) => void; readonly label: string; readonly testId: string }): React.JSX.Element {
  const [draft, setDraft] = useState(value);
  // An unfinished number ("", "-") stays in the field, marked, while the tree keeps the last good one.
  const bad = !isNumberText(draft);
  return (
    <input
      aria-label={label}
      data-testid={testId}
      className={`num-leaf ${bad ? 'invalid' : ''}`}
      inputMode="decimal"
      spellCheck={false}
      value={bad ? draft : value}
      title={bad ? 'a number, such as 2 or 0.5' : undefined}
      onChange={(e) => {
        setDraft(e.target.value);
        if (isNumberText(e.target.value)) onChange(e.target.value.trim());
      }}
    />
  );
}

interface NodeProps {
  readonly path: readonly number[];
  readonly columns: readonly ColumnChoice[];
  readonly issues: readonly TreeIssue[];
  /** data-testid prefix of this tree's controls (the path is appended). */
  readonly testId: string;
  readonly label: string;
}

const suffix = (path: readonly number[]): string => (path.length ? `-${path.join('-')}` : '');

function Issues({ issues, path }: { readonly issues: readonly TreeIssue[]; readonly path: readonly number[] }): React.JSX.Element | null {
  const here = issues.filter((i) => same(i.path, path));
  if (here.length === 0) return null;
  return <div className="row-msg warn-text">{here.map((i) => i.text).join('; ')}</div>;
}

/** One argument: its kind, then its column, number or nested tree. */
function ArgEditor(p: NodeProps & { readonly value: TreeArg; readonly onChange: (v: TreeArg) => void; readonly name: string }): React.JSX.Element {
  const kind = argKind(p.value);
  const sfx = suffix(p.path);
  const firstColumn = p.columns.find((c) => c.type === 'float')?.name ?? '';
  const leafBad = p.issues.some((i) => same(i.path, p.path));
  return (
    <div className={`targ ${kind === 'tree' ? 'nested' : ''}`}>
      <span className="targ-name muted">{p.name}</span>
      <select
        aria-label={`${p.label} ${p.name} kind`}
        data-testid={`${p.testId}-kind${sfx}`}
        className="kind-select"
        value={kind}
        title={KINDS.find((k) => k.kind === kind)?.title}
        onChange={(e) => p.onChange(blankArg(e.target.value as ArgKind, kind === 'column' ? (p.value as string) || firstColumn : firstColumn))}
      >
        {KINDS.map((k) => (
          <option key={k.kind} value={k.kind} title={k.title}>
            {k.label}
          </option>
        ))}
      </select>
      {kind === 'column' && (
        <span className={leafBad ? 'leaf-bad' : ''}>
          <ColumnSelect label={`${p.label} ${p.name}`} testId={`${p.testId}-col${sfx}`} value={p.value as string} columns={p.columns} onChange={(c) => p.onChange(c)} />
        </span>
      )}
      {kind === 'number' && <NumberLeaf label={`${p.label} ${p.name}`} testId={`${p.testId}-num${sfx}`} value={p.value as string} onChange={(v) => p.onChange(v)} />}
      {kind === 'null' && (
        <select aria-label={`${p.label} ${p.name} null`} data-testid={`${p.testId}-null${sfx}`} className="kind-select" value={p.value as string} onChange={(e) => p.onChange(e.target.value)}>
          {NULL_LITERALS.map((n) => (
            <option key={n.value} value={n.value}>
              {n.label}
            </option>
          ))}
        </select>
      )}
      {kind === 'index' && <span className="muted targ-note">row index</span>}
      {kind === 'tree' ? <TreeNode {...p} tree={p.value as Tree} onChange={p.onChange} /> : <Issues issues={p.issues} path={p.path} />}
    </div>
  );
}

/** A tree node: the operator and its arguments (one line for a single plain argument). */
export function TreeNode(p: NodeProps & { readonly tree: Tree; readonly onChange: (t: Tree) => void }): React.JSX.Element {
  const [op = '', ...args] = p.tree as [string, ...TreeArg[]];
  const info = opInfo(op);
  const inline = args.length === 1 && !Array.isArray(args[0]);
  const setArg = (i: number, v: TreeArg): void => p.onChange(p.tree.map((x, j) => (j === i + 1 ? v : x)));
  return (
    <div className={`tnode ${inline ? 'inline' : ''}`}>
      <div className="tnode-head">
        <OpSelect value={op} label={`${p.label} operator`} testId={`${p.testId}-op${suffix(p.path)}`} onChange={(o) => p.onChange(withOp(p.tree, o))} />
        {inline && (
          <ArgEditor {...p} path={[...p.path, 1]} value={args[0]!} name="" onChange={(v) => setArg(0, v)} />
        )}
      </div>
      {!inline && (
        <div className="tnode-args">
          {args.map((a, i) => (
            <ArgEditor key={i} {...p} path={[...p.path, i + 1]} value={a} name={info?.argNames?.[i] ?? `${i + 1}`} onChange={(v) => setArg(i, v)} />
          ))}
        </div>
      )}
      <Issues issues={p.issues} path={p.path} />
    </div>
  );
}
