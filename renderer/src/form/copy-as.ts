/**
 * "Copy as": a form's request as REST JSON, as curl commands (the token request first, the secret as
 * $CLIENT_SECRET, never the secret itself) and as a q expression for a gateway handle (SPEC 7: the
 * q gateway reads char vectors where symbols are expected, q timestamps and dates as REST strings).
 */
import type { ConnectionInfo, OperationSpec } from '../../../engine/contract';

/** Where the gateway is: the active remote, else a local `tickscope gateway` on its default ports. */
function endpoint(conn: ConnectionInfo | undefined): { base: string; tokenUrl: string; clientId: string; host: string } {
  if (conn?.kind === 'remote' && conn.url) {
    return { base: conn.url, tokenUrl: conn.tokenUrl ?? `${conn.url}/auth/realms/tickscope/protocol/openid-connect/token`, clientId: conn.clientId ?? 'CLIENT_ID', host: new URL(conn.url).hostname };
  }
  return { base: 'http://127.0.0.1:8080', tokenUrl: 'http://127.0.0.1:8080/auth/realms/tickscope/protocol/openid-connect/token', clientId: 'CLIENT_ID', host: 'localhost' };
}

export function asRestJson(args: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(args, null, 2);
}

/** A shell word in single quotes. */
const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function asCurl(op: OperationSpec, args: Readonly<Record<string, unknown>>, conn: ConnectionInfo | undefined): string {
  const e = endpoint(conn);
  return [
    `# the client secret from your environment, never written here: export CLIENT_SECRET=...`,
    `TOKEN=$(curl -s -X POST ${shq(e.tokenUrl)} -d grant_type=client_credentials -d client_id=${shq(e.clientId)} --data-urlencode "client_secret=$CLIENT_SECRET" | jq -r .access_token)`,
    `curl -s -X POST ${shq(`${e.base}${op.restPaths[0]}`)} -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\`,
    `  -d ${shq(JSON.stringify(args))}`,
  ].join('\n');
}

const SYMBOL = /^[A-Za-z][A-Za-z0-9_.]*$/;
const Q_TEMPORAL = /^(-?0W[pdnt]|\d{4}\.\d{2}\.\d{2}(D\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?|\d+D\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?|\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)$/;

/** A q string literal. */
const qString = (s: string): string => (s.length === 1 ? `enlist ${JSON.stringify(s)}` : JSON.stringify(s));

/** A JSON value as q source. */
export function qValue(v: unknown): string {
  if (v === null || v === undefined) return '(::)';
  if (typeof v === 'boolean') return v ? '1b' : '0b';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : Number.isFinite(v) ? String(v) : v > 0 ? '0w' : v < 0 ? '-0w' : '0n';
  if (typeof v === 'string') {
    if (Q_TEMPORAL.test(v)) return v;
    if (v === '') return '`';
    return SYMBOL.test(v) ? `\`${v}` : qString(v);
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '()';
    if (v.every((x) => typeof x === 'string' && SYMBOL.test(x))) return v.length === 1 ? `enlist \`${v[0] as string}` : v.map((x) => `\`${x as string}`).join('');
    const items = v.map(qValue);
    return v.length === 1 ? `enlist ${items[0]}` : `(${items.join(';')})`;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return '()!()';
    const keys = entries.map(([k]) => (SYMBOL.test(k) ? `\`${k}` : `\`$${JSON.stringify(k)}`));
    const vals = entries.map(([, x]) => qValue(x));
    return entries.length === 1 ? `(enlist ${keys[0]})!enlist ${vals[0]}` : `${keys.join('')}!(${vals.join(';')})`;
  }
  return JSON.stringify(String(v));
}

export function asQ(op: OperationSpec, args: Readonly<Record<string, unknown>>, conn: ConnectionInfo | undefined): string {
  const e = endpoint(conn);
  return [`/ h:hopen \`:${e.host}:5010:${e.clientId}:SECRET   / client id and secret (or a token) as user:password`, `h(\`${op.ipcNames[0]}; ${qValue(args)})`].join('\n');
}
