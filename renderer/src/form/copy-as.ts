/**
 * "Copy as": a form's request as REST JSON, as curl commands (the token request first, the secret as
 * $CLIENT_SECRET, never the secret itself) and as a q expression for a gateway handle (SPEC 7: the
 * q gateway reads char vectors where symbols are expected, q timestamps and dates as REST strings).
 * Both name the active connection's real gateway (ConnectionInfo.gateway): a remote's URL, token URL,
 * client id and advertised q port; the embedded engine's own gateway when the app serves one; else,
 * first, the commands that start `tickscope gateway` on the same databases (and make a client), at
 * the ports the rest of the text then calls. Runnable as pasted, with CLIENT_SECRET set.
 */
import type { ConnectionInfo, GatewayAccess, OperationSpec } from '../../../engine/contract';

/** What a connection from an older backend (or none yet) says: a remote's URL, else tickscope gateway's defaults. */
function access(conn: ConnectionInfo | undefined): GatewayAccess {
  if (conn?.gateway) return conn.gateway;
  if (conn?.kind === 'remote' && conn.url) {
    return { url: conn.url, tokenUrl: conn.tokenUrl ?? `${conn.url}/auth/realms/tickscope/protocol/openid-connect/token`, q: null, clientId: conn.clientId ?? 'CLIENT_ID' };
  }
  return { url: 'http://127.0.0.1:8080', tokenUrl: 'http://127.0.0.1:8080/auth/realms/tickscope/protocol/openid-connect/token', q: { host: '127.0.0.1', port: 5010, tls: false }, clientId: 'CLIENT_ID' };
}

/**
 * Comment lines (after `mark`, `#` for the shell, `/` for q) with the commands to run first when no
 * gateway serves the engine yet: make the client, then start the gateway, each on a line of its own
 * (indented, to copy whole).
 */
function startLines(mark: string, a: GatewayAccess): string[] {
  if (!a.start) return [];
  const q = a.q ? `, kdb+ IPC at ${a.q.host}:${a.q.port}` : '';
  return [
    ...(a.start.addClient
      ? [`${mark} No client in ${a.start.clientsFile} yet: make one first (its secret is printed once; keep it as CLIENT_SECRET):`, `${mark}   ${a.start.addClient}`]
      : []),
    `${mark} No gateway serves this engine yet: start one on the same database, in another terminal (it keeps running;`,
    `${mark} REST at ${a.url}${q}: tickscope gateway's defaults). Or set gatewayPort and gatewayIpcPort in tickscope.json.`,
    `${mark}   ${a.start.gateway}`,
  ];
}

export function asRestJson(args: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(args, null, 2);
}

/** A shell word in single quotes. */
const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The access token out of the token endpoint's JSON with sed alone (no jq needed): a JWT holds no quote. */
const TOKEN_OF_JSON = `sed -n 's/.*"access_token" *: *"\\([^"]*\\)".*/\\1/p'`;

/** The request as curl: the token request (client credentials, the secret from $CLIENT_SECRET), then the POST. */
export function asCurl(op: OperationSpec, args: Readonly<Record<string, unknown>>, conn: ConnectionInfo | undefined): string {
  const a = access(conn);
  return [
    ...startLines('#', a),
    `# the client secret from your environment, never written here: export CLIENT_SECRET=...`,
    `TOKEN=$(curl -s -X POST ${shq(a.tokenUrl)} -d grant_type=client_credentials -d client_id=${shq(a.clientId)} --data-urlencode "client_secret=$CLIENT_SECRET" | ${TOKEN_OF_JSON})`,
    `curl -s -X POST ${shq(`${a.url}${op.restPaths[0]}`)} -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\`,
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

/**
 * The request as q: a handle opened with the client id and the secret from q's environment
 * (`getenv`, as curl's $CLIENT_SECRET), then the sync call, which answers (header; payload).
 */
export function asQ(op: OperationSpec, args: Readonly<Record<string, unknown>>, conn: ConnectionInfo | undefined): string {
  const a = access(conn);
  const host = a.q?.host ?? new URL(a.url).hostname;
  const where = a.q ? `${a.q.tls ? 'tcps://' : ''}${host}:${a.q.port}` : `${host}:PORT`;
  return [
    ...startLines('/', a),
    ...(a.q
      ? []
      : [
          conn?.kind === 'embedded'
            ? '/ the app serves no kdb+ IPC: set gatewayIpcPort in tickscope.json and restart it, then put that port for PORT'
            : `/ ${a.url} does not say where its kdb+ IPC listens (its getMeta names no port): put that port for PORT`,
        ]),
    `/ the client secret from q's environment, never written here: start q with CLIENT_SECRET set`,
    `h:hopen \`$":${where}:${a.clientId}:",getenv\`CLIENT_SECRET`,
    `h(\`${op.ipcNames[0]}; ${qValue(args)})`,
  ].join('\n');
}
