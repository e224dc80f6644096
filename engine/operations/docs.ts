/**
 * docs/arguments.md, generated from the registry so the reference can never drift from the code.
 * Regenerate with `UPDATE_DOCS=1 npx vitest run test/engine/registry.test.ts`; the test fails while
 * the committed file differs.
 */
import { OPERATIONS } from './index.js';
import { defaultText, excludesText, needsText, rangeText } from '../registry/default-text.js';
import type { ArgSpec, ArgType, OperationSpec } from '../registry/types.js';

const TYPE_TEXT: Record<ArgType, string> = {
  symbol: 'symbol',
  symbols: 'symbol[]',
  timestamp: 'timestamp',
  date: 'date',
  timespanPair: 'pair of timespans',
  integer: 'integer',
  boolean: 'boolean',
  filter: 'list or string',
  sortCols: 'list',
  dict: 'dictionary',
  agg: 'list or dictionary',
  refFilter: 'string or dictionary',
  booleanOrSymbol: 'boolean or symbol',
};

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** The default column: the value in code type, or what not giving it means in words. */
function shownDefault(a: ArgSpec): string {
  const text = defaultText(a);
  return text === null ? '' : a.default !== undefined ? `\`${cell(text)}\`` : cell(text);
}

function row(a: ArgSpec): string {
  const allowed = a.allowed ? ` One of: ${a.allowed.join(', ')}.` : '';
  const range = a.range ? ` ${rangeText(a)}` : '';
  const needs = a.requires ? ` ${needsText(a, (n) => `\`${n}\``)}` : '';
  const excludes = a.excludes ? ` ${excludesText(a, (n) => `\`${n}\``)}` : '';
  return `| \`${a.name}\` | ${TYPE_TEXT[a.type]} | ${a.required ? 'yes' : 'no'} | ${shownDefault(a)} | ${cell(a.doc)}${allowed}${cell(range)}${cell(needs)}${cell(excludes)} | \`${cell(JSON.stringify(a.example))}\` |`;
}

/** The Markdown of docs/arguments.md. */
export function argumentsMarkdown(operations: readonly OperationSpec[] = OPERATIONS): string {
  const out: string[] = [
    '# Arguments of every operation',
    '',
    "<!-- Generated from the operations' declarations (engine/operations/); do not edit by hand. -->",
    '',
    'Every operation and argument Tickscope accepts, from the one registry that also drives decoding,',
    'validation, the app\'s forms and the gateways. Values may be sent natively (JSON numbers, booleans,',
    'arrays) or REST-encoded as strings (docs/operations/getTicks.md shows both). An unknown argument',
    'name is error `ac` 2; a value outside its range `ac` 4; an argument given without one it needs `ac` 15.',
    '',
  ];
  for (const op of operations) {
    out.push(`## ${op.name}`, '');
    out.push(`${op.doc}`, '');
    out.push(`Names: ${op.ipcNames.map((n) => `\`${n}\``).join(', ')}. REST: ${op.restPaths.map((p) => `\`POST ${p}\``).join(', ')}. Scope: \`${op.scope}\`${op.writes ? ' (it stores rows)' : ''}.`, '');
    out.push('| argument | type | required | default | description | example (REST) |');
    out.push('|---|---|---|---|---|---|');
    for (const a of op.args) out.push(row(a));
    out.push('');
  }
  return out.join('\n');
}
