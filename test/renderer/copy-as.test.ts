/** "Copy as": REST JSON, curl (secret as $CLIENT_SECRET) and q expressions of a form's request. */
import { describe, expect, it } from 'vitest';
import type { ConnectionInfo } from '../../engine/contract.js';
import { operationByName } from '../../engine/operations/index.js';
import { asCurl, asQ, asRestJson, qValue } from '../../renderer/src/form/copy-as.js';

const args = {
  table: 'Trade',
  startTS: '2024.03.06D14:30:00',
  endTS: '2024.03.06',
  idList: ['AAPL', 'MSFT'],
  columns: ['price'],
  filter: [['>=', 'volume', 100]],
  agg: { hi: ['max', 'price'] },
  slice: ['09:30', '16:00'],
  applyCanCor: true,
  decPlaces: 2,
  name: "o'brien & co",
};
const remote: ConnectionInfo = {
  id: 'r1',
  name: 'research',
  kind: 'remote',
  url: 'https://gw.example.com',
  active: true,
  tokenUrl: 'https://kc.example.com/auth/realms/insights/protocol/openid-connect/token',
  clientId: 'desk',
  gateway: { url: 'https://gw.example.com', tokenUrl: 'https://kc.example.com/auth/realms/insights/protocol/openid-connect/token', q: { host: 'gw.example.com', port: 6010, tls: true }, clientId: 'desk' },
};
/** The embedded engine with no gateway and no client yet: the text starts with the commands that make both. */
const unserved: ConnectionInfo = {
  id: 'embedded',
  name: 'Embedded engine',
  kind: 'embedded',
  url: null,
  active: true,
  gateway: {
    url: 'http://127.0.0.1:8080',
    tokenUrl: 'http://127.0.0.1:8080/auth/realms/tickscope/protocol/openid-connect/token',
    q: { host: '127.0.0.1', port: 5010, tls: false },
    clientId: 'scripts',
    start: { gateway: "node '/opt/t/bin/tickscope.cjs' gateway --db '/data/demo' --clients '/home/a/clients.json'", addClient: "node '/opt/t/bin/tickscope.cjs' clients add --clients '/home/a/clients.json' --id scripts --scopes fsi.read,fsi.generate", clientsFile: '/home/a/clients.json' },
  },
};

describe('copy as', () => {
  it('REST JSON is the body the gateway takes', () => {
    expect(JSON.parse(asRestJson(args))).toEqual(args);
  });

  it('curl asks the token first, with the secret from the environment, then posts the body', () => {
    const text = asCurl(operationByName('getTicks'), args, remote);
    expect(text).toContain("curl -s -X POST 'https://kc.example.com/auth/realms/insights/protocol/openid-connect/token' -d grant_type=client_credentials -d client_id='desk' --data-urlencode \"client_secret=$CLIENT_SECRET\"");
    expect(text).toContain("'https://gw.example.com/servicegateway/fsi/getTicks'");
    expect(text).toContain('-H "Authorization: Bearer $TOKEN"');
    // the body survives shell quoting: the single quote of o'brien is closed, escaped and reopened
    const body = /-d '(.*)'$/s.exec(text)![1]!.replace(/'\\''/g, "'");
    expect(JSON.parse(body)).toEqual(args);
    expect(asCurl(operationByName('generateOrderAnalytics'), {}, undefined)).toContain("'http://127.0.0.1:8080/servicegateway/fsi/eqea/generateOrderAnalytics'");
    // the token out of its JSON by sed, which every shell has: no jq to install
    expect(text).toContain(`| sed -n 's/.*"access_token" *: *"\\([^"]*\\)".*/\\1/p')`);
    expect(text).not.toContain('jq');
    // served already: nothing to start
    expect(text.split('\n')[0]).toBe('# the client secret from your environment, never written here: export CLIENT_SECRET=...');
  });

  it('for an engine no gateway serves, first makes the client, then starts the gateway, as comment lines to run', () => {
    const lines = asCurl(operationByName('getTicks'), { table: 'Trade' }, unserved).split('\n');
    const commands = lines.filter((l) => l.startsWith('#   ')).map((l) => l.slice(4));
    expect(commands).toEqual([unserved.gateway!.start!.addClient, unserved.gateway!.start!.gateway]);
    expect(lines.every((l, i) => l.startsWith('#') || i >= lines.length - 3)).toBe(true);
    expect(lines.at(-2)).toContain("'http://127.0.0.1:8080/servicegateway/fsi/getTicks'");
    expect(lines.at(-3)).toContain("-d client_id='scripts'");
    const q = asQ(operationByName('getTicks'), { table: 'Trade' }, unserved).split('\n');
    expect(q.filter((l) => l.startsWith('/   ')).map((l) => l.slice(4))).toEqual(commands);
    expect(q.at(-2)).toBe('h:hopen `$":127.0.0.1:5010:scripts:",getenv`CLIENT_SECRET');
    // a client there already: named, and no line makes one
    const withClient: ConnectionInfo = { ...unserved, gateway: { ...unserved.gateway!, clientId: 'notebook', start: { gateway: unserved.gateway!.start!.gateway, clientsFile: '/home/a/clients.json' } } };
    const text = asCurl(operationByName('getTicks'), { table: 'Trade' }, withClient);
    expect(text).not.toContain('clients add');
    expect(text).toContain("-d client_id='notebook'");
  });

  it('q writes symbols, timestamps, dates, timespans, lists, dictionaries and booleans as q source', () => {
    expect(qValue('Trade')).toBe('`Trade');
    expect(qValue('2024.03.06D14:30:00')).toBe('2024.03.06D14:30:00');
    expect(qValue('2024.03.06')).toBe('2024.03.06');
    expect(qValue('09:30')).toBe('09:30');
    expect(qValue(['AAPL', 'MSFT'])).toBe('`AAPL`MSFT');
    expect(qValue(['AAPL'])).toBe('enlist `AAPL');
    expect(qValue([['>=', 'volume', 100]])).toBe('enlist (">=";`volume;100)');
    expect(qValue({ hi: ['max', 'price'] })).toBe('(enlist `hi)!enlist `max`price');
    expect(qValue(true)).toBe('1b');
    expect(qValue('x')).toBe('`x');
    expect(qValue("o'brien & co")).toBe('"o\'brien & co"');
    const q = asQ(operationByName('getTicks'), args, remote);
    expect(q.split('\n').at(-1)).toBe(
      'h(`.fsi.getTicks; `table`startTS`endTS`idList`columns`filter`agg`slice`applyCanCor`decPlaces`name!(`Trade;2024.03.06D14:30:00;2024.03.06;`AAPL`MSFT;enlist `price;enlist (">=";`volume;100);(enlist `hi)!enlist `max`price;(09:30;16:00);1b;2;"o\'brien & co"))',
    );
    // the remote's advertised q port (TLS, as its REST is https), its client, the secret from q's environment
    expect(q.split('\n').at(-2)).toBe('h:hopen `$":tcps://gw.example.com:6010:desk:",getenv`CLIENT_SECRET');
    // a remote whose getMeta names no q port: said, and a PORT to fill in
    const insights = asQ(operationByName('getTicks'), {}, { ...remote, gateway: { ...remote.gateway!, q: null } }).split('\n');
    expect(insights[0]).toBe('/ https://gw.example.com does not say where its kdb+ IPC listens (its getMeta names no port): put that port for PORT');
    expect(insights.at(-2)).toBe('h:hopen `$":gw.example.com:PORT:desk:",getenv`CLIENT_SECRET');
    // the app serving REST only (gatewayIpcPort 0): says which setting serves q
    const restOnly: ConnectionInfo = { ...unserved, gateway: { url: 'http://127.0.0.1:8181', tokenUrl: 'http://127.0.0.1:8181/auth/realms/tickscope/protocol/openid-connect/token', q: null, clientId: 'notebook' } };
    expect(asQ(operationByName('getTicks'), {}, restOnly).split('\n')[0]).toBe('/ the app serves no kdb+ IPC: set gatewayIpcPort in tickscope.json and restart it, then put that port for PORT');
  });
});
