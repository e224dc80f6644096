/**
 * End to end: the app against a remote gateway (SPEC 7). A second demo database served by
 * `tickscope gateway` (a process, its client added by `tickscope clients add`); in Chromium the user
 * adds the remote connection (a wrong secret first: the dialog says why), runs a query on it and gets
 * the remote's rows, exactly as `tickscope call` gives them on the remote's database, the status line
 * naming the connection; then switches back to the embedded engine.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, callPayload, CLI, openApp } from './harness.js';

let app: App;
let page: Page;
let gateway: ChildProcess;
let gatewayUrl = '';
let gatewayQPort = 0;
let remoteDb = '';
const SECRET = 'e2e-remote-secret-0001';

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', '8000'], 'tickscope-e2e-remote-');
  page = app.page;
  remoteDb = join(app.dir, 'remote');
  execFileSync(process.execPath, [CLI, 'demo', '--db', remoteDb, '--seed', '7', '--days', '1', '--instruments', '6', '--trades-per-day', '12000'], { stdio: 'ignore' });
  const clients = join(app.dir, 'clients.json');
  execFileSync(process.execPath, [CLI, 'clients', 'add', '--clients', clients, '--id', 'desk', '--secret', '-'], { input: `${SECRET}\n` });
  gateway = spawn(process.execPath, [CLI, 'gateway', '--db', remoteDb, '--port', '0', '--ipc-port', '0', '--clients', clients, '--workers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  gatewayUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    gateway.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /REST at (http:\/\/[^/]+)\/.*kdb\+ IPC at [^:]+:(\d+)/.exec(out);
      if (m) {
        gatewayQPort = Number(m[2]);
        resolve(m[1]!);
      }
    });
    gateway.on('exit', (code) => reject(new Error(`gateway exited ${code}: ${out}`)));
  });
});

afterAll(async () => {
  gateway?.kill();
  await app?.close();
});

async function fillRemote(p: Page, secret: string): Promise<void> {
  await p.selectOption('[data-testid="connection"]', '__add');
  await p.waitForSelector('[data-testid="remote-dialog"]');
  await p.fill('[data-testid="remote-dialog"] input[name="name"]', 'research');
  await p.fill('[data-testid="remote-dialog"] input[name="baseUrl"]', gatewayUrl);
  await p.fill('[data-testid="remote-dialog"] input[name="clientId"]', 'desk');
  await p.fill('[data-testid="remote-dialog"] input[name="clientSecret"]', secret);
  await p.click('[data-testid="remote-connect"]');
}

describe('the app against a remote gateway', () => {
  it('adds the connection (a wrong secret is refused with the reason), runs on it, and switches back', async () => {
    expect(await page.locator('[data-testid="connection-name"]').textContent()).toBe('Embedded engine');
    await fillRemote(page, 'not-the-secret');
    const refused = await page.waitForSelector('[data-testid="remote-error"]');
    expect(await refused.textContent()).toMatch(/refused the client \(401 unknown client or wrong secret\)/);
    for (const [width, height] of [[1280, 800], [1600, 1000]] as const) {
      await page.setViewportSize({ width, height });
      await page.screenshot({ path: join(ARTIFACTS, `remote-dialog-${width}.png`) });
    }
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="remote-dialog"]', { state: 'detached' });

    await fillRemote(page, SECRET);
    await page.waitForSelector('[data-testid="remote-dialog"]', { state: 'detached' });
    await page.waitForFunction(() => document.querySelector('[data-testid="connection-name"]')?.textContent === 'research');
    await page.waitForSelector('[data-testid="arg-table"] option[value="Trade"]', { state: 'attached' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(ARTIFACTS, 'remote-connected-1280.png') });

    await page.selectOption('[data-testid="arg-table"]', 'Trade');
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D14:30:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D15:30:00');
    await page.fill('[data-testid="arg-idList"]', 'AAPL, MSFT');
    await page.fill('[data-testid="arg-columns"]', 'instrumentID, price, volume, exchTime');
    await page.keyboard.press('Control+Enter');
    const status = await page.waitForSelector('[data-testid="rows"]');
    const shown = Number((await status.textContent())!.split(' rows')[0]!.replace(/,/g, ''));
    const body = (await page.locator('[data-testid="request-preview"]').textContent())!;
    const remoteRows = callPayload(remoteDb, body);
    const localRows = callPayload(app.db, body);
    expect(remoteRows.length).toBeGreaterThan(50);
    expect(remoteRows.length).not.toBe(localRows.length);
    expect(shown).toBe(remoteRows.length);
    // the grid shows the remote's rows, timestamps exact to the nanosecond in the zone asked
    await page.waitForFunction(() => !document.querySelector('[data-row="0"]')?.textContent?.includes('…'));
    // each cell's exact text (its tooltip; the cell itself shows the column's format, 5,100)
    const firstRow = await page.locator('[data-row="0"] .grid-cell').evaluateAll((cells) => cells.map((c) => c.getAttribute('title') ?? c.textContent));
    expect(firstRow).toEqual(['1', ...Object.values(remoteRows[0]!).map((v) => (v === null ? '' : String(v)))]);
    expect(firstRow[1]).toMatch(/^2024-03-06T14:30:\d{2}\.\d{9}$/);
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.screenshot({ path: join(ARTIFACTS, 'remote-result-1600.png') });

    // Copy as curl: the remote's token endpoint and client id, the secret as $CLIENT_SECRET only
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.evaluate(() => document.querySelector<HTMLDetailsElement>('details.preview')!.setAttribute('open', ''));
    // (the columns field still has focus from typing: its list closing on blur moves the form)
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.click('[data-testid="copy-curl"]');    await page.waitForSelector('text=copied as curl');
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`'${gatewayUrl}/auth/realms/tickscope/protocol/openid-connect/token' -d grant_type=client_credentials -d client_id='desk'`);
    expect(curl).toContain(`'${gatewayUrl}/servicegateway/fsi/getTicks'`);
    expect(curl).toContain('$CLIENT_SECRET');
    expect(curl).not.toContain(SECRET);
    await page.click('[data-testid="copy-q"]');
    await page.waitForSelector('text=copied as q');
    const q = await page.evaluate(() => navigator.clipboard.readText());
    // the remote's own kdb+ IPC port (its getMeta says it), its client, the secret from q's environment
    expect(q.split('\n').at(-2), q).toBe(`h:hopen \`$":127.0.0.1:${gatewayQPort}:desk:",getenv\`CLIENT_SECRET`);
    expect(q.split('\n').at(-1), q).toMatch(/^h\(`\.fsi\.getTicks; `table`startTS`endTS`columns`idList!\(`Trade;2024\.03\.06D14:30:00;2024\.03\.06D15:30:00;`instrumentID`price`volume`exchTime;`AAPL`MSFT\)\)$/);
    await page.screenshot({ path: join(ARTIFACTS, 'remote-copy-as-1600.png') });

    await page.selectOption('[data-testid="connection"]', 'embedded');
    await page.waitForFunction(() => document.querySelector('[data-testid="connection-name"]')?.textContent === 'Embedded engine');
  });

  it("keeps every operation's form across connections, marking what the connection does not know", async () => {
    // getStats with analytics, an aggregation and a grouping (put in by a link), then getTicks filled by hand
    const stats = { table: 'Trade', startTS: '2024.03.06D14:30:00', endTS: '2024.03.06D16:00:00', analytics: ['vwap', 'maxPrice'], groupBy: ['instrumentID'], agg: { n: ['count', 'price'] } };
    await page.goto(`${app.url}#op=getStats&args=${encodeURIComponent(JSON.stringify(stats))}`);
    await page.reload();
    await page.waitForSelector('[data-testid="arg-analytics"]');
    const statsBody = await page.locator('[data-testid="request-preview"]').textContent();
    expect(JSON.parse(statsBody!)).toEqual(stats);
    await page.click('nav.op-tabs >> text=getTicks');
    await page.selectOption('[data-testid="arg-table"]', 'Trade');
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D14:30:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D15:00:00');
    await page.fill('[data-testid="arg-idList"]', 'MSFT');
    await page.fill('[data-testid="arg-columns"]', 'price, bogusColumn');
    await page.keyboard.press('Escape');
    const ticks = await page.locator('[data-testid="request-preview"]').textContent();
    expect(JSON.parse(ticks!)).toMatchObject({ table: 'Trade', startTS: '2024.03.06D14:30:00', idList: ['MSFT'], columns: ['price', 'bogusColumn'] });
    // to the remote and back (a reload forgot the remote: add it again)
    await page.click('nav.op-tabs >> text=getStats');
    await fillRemote(page, SECRET);
    await page.waitForSelector('[data-testid="remote-dialog"]', { state: 'detached' });
    await page.waitForFunction(() => document.querySelector('[data-testid="connection-name"]')?.textContent === 'research');
    await expect.poll(() => page.locator('[data-testid="request-preview"]').textContent()).toBe(statsBody);
    await page.click('nav.op-tabs >> text=getTicks');
    expect(await page.locator('[data-testid="request-preview"]').textContent()).toBe(ticks);
    // a column the table does not have stays in the form, its chip marked with the reason (once)
    await expect.poll(() => page.locator('.arg-row:has([data-testid="arg-columns"]) .field-msg').allTextContents()).toEqual(['bogusColumn: not a column of Trade']);
    await expect.poll(() => page.locator('[data-testid="arg-columns-problem"]').getAttribute('class')).toContain('error-text');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(ARTIFACTS, 'remote-form-kept-1280.png') });
    await page.selectOption('[data-testid="connection"]', 'embedded');
    await page.waitForFunction(() => document.querySelector('[data-testid="connection-name"]')?.textContent === 'Embedded engine');
    expect(await page.locator('[data-testid="request-preview"]').textContent()).toBe(ticks);
    // getStats runs as it was set up, on this connection too
    await page.click('nav.op-tabs >> text=getStats');
    expect(await page.locator('[data-testid="request-preview"]').textContent()).toBe(statsBody);
    await page.click('[data-testid="run"]');
    await page.waitForSelector('[data-testid="rows"]');
    expect(await page.locator('[data-testid="error"]').count()).toBe(0);
  });
});
