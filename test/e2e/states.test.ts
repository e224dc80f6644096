/**
 * The workbench's honest states and its layout in a browser: a running query dims the previous
 * result and names it; an error opens its panel over the result (which is hidden) and marks the form
 * field it names; an empty result says no rows with its window; a collapsed pane stays collapsed
 * across a reload; a header click sorts the grid through the engine without running the request again.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, callPayload, openApp } from './harness.js';

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', '4000'], 'tickscope-e2e-states-');
  page = app.page;
  await page.setViewportSize({ width: 1280, height: 800 });
});

afterAll(async () => app?.close());

/**
 * Runs the form (Ctrl+Enter) and waits for the run to end: for the Run button to have been disabled
 * (running) and to be enabled again. Its text is no sign ("Running…" starts with "Run" too): a wait
 * on it passed while the run went on, and a history count taken then missed the run's entry.
 */
const ran = async (): Promise<void> => {
  await page.evaluate(() => {
    const w = window as unknown as { ranStarted?: boolean };
    w.ranStarted = false;
    const seen = new MutationObserver(() => {
      if ((document.querySelector('[data-testid="run"]') as HTMLButtonElement | null)?.disabled) {
        w.ranStarted = true;
        seen.disconnect();
      }
    });
    seen.observe(document.body, { attributes: true, attributeFilter: ['disabled'], childList: true, subtree: true });
  });
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => (window as unknown as { ranStarted?: boolean }).ranStarted === true && (document.querySelector('[data-testid="run"]') as HTMLButtonElement | null)?.disabled === false);
};
const grid = (): ReturnType<Page['locator']> => page.locator('[role="grid"][data-testid="grid"]');
const historyCount = async (): Promise<number> => {
  await page.keyboard.press('Control+h');
  const items = page.locator('[data-testid="memory-list"] li');
  await items.first().waitFor();
  const n = await items.count();
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="memory-panel"]').waitFor({ state: 'detached' });
  return n;
};
/** Header cells wholly inside the grid's box. */
const columnsInView = (): Promise<number> =>
  page.evaluate(() => {
    const g = document.querySelector('[data-testid="grid"]')!.getBoundingClientRect();
    return [...document.querySelectorAll('[data-testid="grid"] .grid-header > [data-col]')].filter((h) => {
      const r = h.getBoundingClientRect();
      return r.left >= g.left - 1 && r.right <= g.right + 1;
    }).length;
  });

describe('states and layout', () => {
  it('dims the previous result while a query runs; an error covers it and marks the field it names', async () => {
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D14:30:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D15:30:00');
    await ran();
    await expect.poll(() => grid().isVisible()).toBe(true);

    // a slow answer (held until the test has looked): the previous result is dimmed and says which request it answered
    let answer!: () => void;
    const answerable = new Promise<void>((r) => (answer = r));
    await page.route('**/app/api/run', async (route) => {
      await answerable;
      await route.continue();
    });
    await page.fill('[data-testid="arg-startTS"]', 'tomorrow');
    await page.keyboard.press('Control+Enter');
    const banner = page.locator('[data-testid="previous-banner"]');
    await expect.poll(() => banner.textContent(), { timeout: 10_000 }).toMatch(/^previous result: getTicks Trade 2024-03-06 · AAPL · [\d,]+ rows— running…$/);
    expect(await page.locator('main.results').evaluate((m) => m.classList.contains('stale'))).toBe(true);
    answer();

    // the error: its panel with the message, the code and what docs/errors.md says of it, the request
    const panel = page.locator('[data-testid="error-panel"]');
    await panel.waitFor();
    await page.unroute('**/app/api/run');
    expect(await page.locator('[data-testid="error-message"]').textContent()).toMatch(/^startTS: "tomorrow" is not a timestamp; expected/);
    expect(await page.locator('[data-testid="error-code"]').textContent()).toBe('ac 4 · value does not parse as the argument type');
    expect(await page.locator('[data-testid="error-request"]').textContent()).toContain('"startTS":"tomorrow"');
    // the previous result is not shown as current: the grid is hidden, nothing to export
    expect(await grid().isVisible()).toBe(false);
    expect(await page.locator('[data-testid="export"]').isDisabled()).toBe(true);
    // the field: outlined, the problem under it
    expect(await page.locator('[data-marked="startTS"]').count()).toBe(1);
    expect(await page.locator('[data-testid="arg-startTS-error"]').textContent()).toBe('"tomorrow" is not a timestamp');
    expect(await page.locator('[data-testid="arg-startTS"]').evaluate((e) => getComputedStyle(e).borderColor)).toBe('rgb(255, 107, 107)');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-states-error.png') });

    // startTS >= endTS names both ends; editing a field clears its mark
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D16:00:00');
    await ran();
    await expect.poll(() => page.locator('[data-marked]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-marked')))).toEqual(['startTS', 'endTS']);
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D17:00:00');
    expect(await page.locator('[data-marked]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-marked')))).toEqual(['startTS']);

    // back to the previous result, on purpose
    await page.click('[data-testid="error-dismiss"]');
    expect(await grid().isVisible()).toBe(true);
  });

  it('says "no rows" with the window and the identifiers of an empty result; an unknown chip says why it is red', async () => {
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D03:00:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D03:01:00');
    await page.click('[data-testid="arg-idList"]');
    await page.keyboard.type('ZZZ,');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('[data-testid="arg-idList-problem"]').textContent()).toBe('ZZZ: not in Trade on any date (2024-03-06)');
    await ran();
    const panel = page.locator('[data-testid="empty-panel"]');
    await panel.waitFor();
    expect(await panel.locator('.state-title').textContent()).toBe('No rows');
    expect(await page.locator('[data-testid="empty-window"]').textContent()).toBe('2024.03.06D03:00:00 → 2024.03.06D03:01:00 UTC');
    expect(await page.locator('[data-testid="empty-idList"]').textContent()).toBe('AAPL, ZZZ');
    expect(await page.locator('[data-testid="empty-hint"]').textContent()).toBe('ZZZ is not in Trade on any date');
    expect(await grid().isVisible()).toBe(false);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-states-empty.png') });
  });

  it('sorts the held result by a header click through the engine, never running the request again', async () => {
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D00:00:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.07D00:00:00');
    await page.click('[data-testid="arg-idList"]');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Escape');
    await ran();
    await page.waitForFunction(() => !document.querySelector('[data-testid="grid"] [data-row="0"]')?.textContent?.includes('…'));
    const runs = await historyCount();
    const payload = callPayload(app.db, (await page.locator('[data-testid="request-preview"]').textContent())!);
    expect(payload.length).toBeGreaterThan(1000); // more than a page of the grid
    const prices = payload.map((r) => r['price'] as number);
    const firstPrice = (): Promise<string> =>
      page.evaluate(() => {
        const at = [...document.querySelectorAll('[data-testid="grid"] .grid-header > [role="columnheader"]')].findIndex((h) => h.getAttribute('data-col') === 'price');
        const cell = document.querySelector('[data-testid="grid"] [data-row="0"]')?.children[at];
        return cell?.getAttribute('title') ?? cell?.textContent ?? '';
      });
    const unsorted = grid().getAttribute('data-result');

    await page.click('[data-testid="grid"] [data-col="price"] .grid-hname');
    await expect.poll(firstPrice).toBe(String(Math.min(...prices)));
    expect(await page.locator('[data-testid="grid-sort-price"]').textContent()).toBe('▲');
    expect(await page.locator('[data-testid="grid"] [data-col="price"]').getAttribute('aria-sort')).toBe('ascending');
    expect(await grid().getAttribute('data-result')).not.toBe(await unsorted);
    await page.click('[data-testid="grid"] [data-col="price"] .grid-hname');
    await expect.poll(firstPrice).toBe(String(Math.max(...prices)));
    expect(await page.locator('[data-testid="grid-sort-price"]').textContent()).toBe('▼');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-states-sorted.png') });
    // the request ran once: one history entry more than before the sort? none
    expect(await historyCount()).toBe(runs);
    // a third click: the result's own order again
    await page.click('[data-testid="grid"] [data-col="price"] .grid-hname');
    await expect.poll(() => grid().getAttribute('data-result')).toBe(await unsorted);
    expect(await page.locator('[data-testid="grid-sort-price"]').count()).toBe(0);

    // columns move by dragging a header and hide from its menu
    await page.dragAndDrop('[data-testid="grid"] [data-col="price"] .grid-hname', '[data-testid="grid"] [data-col="instrumentID"] .grid-hname', { targetPosition: { x: 2, y: 6 } });
    const order = (): Promise<Array<string | null>> => page.locator('[data-testid="grid"] .grid-header > [data-col]').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-col')));
    expect((await order()).slice(0, 3)).toEqual(['eventTimestamp', 'price', 'instrumentID']);
    await page.hover('[data-testid="grid"] [data-col="exchTime"]');
    await page.click('[data-testid="grid-menu-exchTime"]');
    await page.click('[data-testid="grid-menu-hide"]');
    expect(await order()).not.toContain('exchTime');
    expect(await page.locator('[data-testid="grid-hidden-count"]').textContent()).toBe('+1');
    await page.hover('[data-testid="grid"] [data-col="price"]');
    await page.click('[data-testid="grid-menu-price"]');
    await page.click('[data-testid="grid-menu-show-all"]');
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="grid-menu"]').waitFor({ state: 'detached' });
    expect(await order()).toContain('exchTime');
  });

  it('collapses the form (shortcut, handle) so the grid shows more columns, and keeps that across a reload', async () => {
    const before = await columnsInView();
    await page.keyboard.press('Control+Alt+2');
    await page.locator('[data-testid="rail-form"]').waitFor();
    expect(await page.locator('[data-testid="arg-table"]').isVisible()).toBe(false);
    await expect.poll(columnsInView).toBeGreaterThan(Math.max(3, before));
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-states-collapsed.png') });

    await page.reload();
    await page.waitForSelector('[data-testid="arg-table"] option[value="Trade"]', { state: 'attached' });
    await page.locator('[data-testid="rail-form"]').waitFor();
    expect(await page.locator('[data-testid="arg-table"]').isVisible()).toBe(false);

    // a double click on its handle brings it back at its size
    await page.dblclick('[data-testid="handle-form"]');
    await page.locator('[data-testid="arg-table"]').waitFor();
    expect((await page.locator('#pane-form').boundingBox())!.width).toBeGreaterThanOrEqual(260);
    expect(await page.locator('[data-testid="rail-form"]').count()).toBe(0);
  });
});
