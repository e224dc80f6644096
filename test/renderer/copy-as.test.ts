/** "Copy as": REST JSON, curl (secret as $CLIENT_SECRET) and q expressions of a form's request. */
import { describe, expect, it } from 'vitest';
import type { ConnectionInfo } from '../../engine/contract.js';
import { operationByName } from '../../engine/registry/operations.js';
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
const remote: ConnectionInfo = { id: 'r1', name: 'research', kind: 'remote', url: 'https://gw.example.com', active: true, tokenUrl: 'https://kc.example.com/auth/realms/insights/protocol/openid-connect/token', clientId: 'desk' };

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
    expect(q.split('\n')[1]).toBe(
      'h(`.fsi.getTicks; `table`startTS`endTS`idList`columns`filter`agg`slice`applyCanCor`decPlaces`name!(`Trade;2024.03.06D14:30:00;2024.03.06;`AAPL`MSFT;enlist `price;enlist (">=";`volume;100);(enlist `hi)!enlist `max`price;(09:30;16:00);1b;2;"o\'brien & co"))',
    );
    expect(q).toContain('hopen `:gw.example.com:5010:desk:SECRET');
  });
});
