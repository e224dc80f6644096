/**
 * docs/arguments.md, generated from the registry so the reference can never drift from the code.
 * Regenerate with `UPDATE_DOCS=1 npx vitest run test/engine/registry.test.ts`; the test fails while
 * the committed file differs.
 */
import { OPERATIONS } from './operations.js';
import type { ArgSpec, ArgType } from './types.js';

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

function row(a: ArgSpec, supported: boolean): string {
  const allowed = a.allowed ? ` One of: ${a.allowed.join(', ')}.` : '';
  return `| \`${a.name}\` | ${TYPE_TEXT[a.type]} | ${a.required ? 'yes' : 'no'} | ${a.default === null ? '' : `\`${cell(a.default)}\``} | ${cell(a.doc)}${allowed} | \`${cell(JSON.stringify(a.example))}\` | ${supported ? 'yes' : 'not yet'} |`;
}

/** The Markdown of docs/arguments.md. */
export function argumentsMarkdown(): string {
  const out: string[] = [
    '# Arguments of every operation',
    '',
    '<!-- Generated from engine/registry/operations.ts; do not edit by hand. -->',
    '',
    'Every operation and argument Tickscope accepts, from the one registry that also drives decoding,',
    'validation, the app\'s forms and the gateways. Values may be sent natively (JSON numbers, booleans,',
    'arrays) or REST-encoded as strings (docs/operations/getTicks.md shows both). An argument marked',
    '"not yet" is declared and validated; giving it a non-default value answers error `ac` 8 naming it.',
    'An unknown argument name is error `ac` 2.',
    '',
  ];
  for (const op of OPERATIONS) {
    out.push(`## ${op.name}`, '');
    out.push(`${op.doc}`, '');
    out.push(`Names: ${op.ipcNames.map((n) => `\`${n}\``).join(', ')}. REST: ${op.restPaths.map((p) => `\`POST ${p}\``).join(', ')}.`, '');
    if (op.supported.length === 0) out.push('**Not supported yet**: the arguments are validated, then the call answers `ac` 8.', '');
    out.push('| argument | type | required | default | description | example (REST) | implemented |');
    out.push('|---|---|---|---|---|---|---|');
    for (const a of op.args) out.push(row(a, op.supported.includes(a.name)));
    out.push('');
  }
  return out.join('\n');
}
