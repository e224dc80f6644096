/**
 * The app's memory in a browser (SPEC 9): the form in the URL survives a reload, every run is in the
 * history (Ctrl+H) and runs again from there, saved queries outlive the page.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, openApp } from './harness.js';

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', '4000'], 'tickscope-e2e-memory-');
  page = app.page;
});

afterAll(async () => app?.close());

const rowsShown = async (): Promise<number> => Number((await page.locator('[data-testid="rows"]').textContent())!.split(' rows')[0]!.replace(/,/g, ''));

describe('history, saved queries and the URL', () => {
  it('keeps the form in the URL, records each run, and runs one again from the history', async () => {
    await page.selectOption('[data-testid="arg-table"]', 'Trade');
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D14:30:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D15:00:00');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('[data-testid="rows"]');
    const first = await rowsShown();
    expect(first).toBeGreaterThan(0);
    expect(decodeURIComponent(new URL(page.url()).hash)).toContain('"startTS":"2024.03.06D14:30:00"');

    // a reload restores the form exactly
    await page.reload();
    await page.waitForSelector('[data-testid="arg-table"] option[value="Trade"]', { state: 'attached' });
    await expect.poll(() => page.inputValue('[data-testid="arg-startTS"]')).toBe('2024.03.06D14:30:00');
    expect(await page.inputValue('[data-testid="arg-endTS"]')).toBe('2024.03.06D15:00:00');

    // another run, then the first one again from the history (kept across the reload)
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D14:45:00');
    await page.keyboard.press('Control+Enter');
    await expect.poll(rowsShown).toBeLessThan(first);
    await page.keyboard.press('Control+h');
    const items = page.locator('[data-testid="memory-list"] li');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toContain('14:45:00');
    expect(await items.nth(1).textContent()).toContain(`${first.toLocaleString('en-US')} rows`);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-history.png') });
    await page.fill('[data-testid="memory-search"]', '15:00');
    await expect.poll(() => items.count()).toBe(1);
    await page.keyboard.press('Enter');
    await expect.poll(rowsShown).toBe(first);
    expect(await page.inputValue('[data-testid="arg-endTS"]')).toBe('2024.03.06D15:00:00');
    expect(await page.locator('[data-testid="memory-panel"]').count()).toBe(0);
    // opened again, the search starts empty and lists every run
    await page.keyboard.press('Control+h');
    expect(await page.inputValue('[data-testid="memory-search"]')).toBe('');
    await expect.poll(() => items.count()).toBe(3);
    await page.keyboard.press('Escape');
  });

  it('saves the current request by name, keeps it across a reload, and puts it back in the form', async () => {
    // Mod+S puts the cursor in the name box: typing names the request, Enter saves it
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('save-name');
    await page.keyboard.type('half hour of trades');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('[data-testid="memory-list"] li').first().textContent()).toContain('half hour of trades');
    await page.keyboard.press('Escape');
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D10:00:00');
    await page.reload();
    await page.waitForSelector('[data-testid="arg-table"] option[value="Trade"]', { state: 'attached' });
    await page.keyboard.press('Control+s');
    const saved = page.locator('[data-testid="memory-list"] li').first();
    await expect.poll(() => saved.textContent()).toContain('half hour of trades');
    await saved.click({ modifiers: ['Shift'] }); // Shift: into the form, not run
    await expect.poll(() => page.inputValue('[data-testid="arg-startTS"]')).toBe('2024.03.06D14:30:00');
  });

  it('jumps from the command palette (Ctrl+K) to a table, an operation or a saved query, and lists the shortcuts under ?', async () => {
    await page.keyboard.press('Control+k');
    const items = page.locator('[data-testid="palette-list"] li');
    // moving the pointer onto an item selects it
    await page.fill('[data-testid="palette-search"]', 'table');
    await expect.poll(() => items.count()).toBeGreaterThan(2);
    const third = (await items.nth(2).boundingBox())!;
    await page.mouse.move(third.x + third.width / 2, third.y + third.height / 2, { steps: 2 });
    await expect.poll(() => items.nth(2).getAttribute('class')).toBe('at');
    // a new list (typing, the pointer resting on it) selects its first match, in the same render: Enter takes it
    await page.fill('[data-testid="palette-search"]', 'table quote');
    await expect.poll(() => items.first().textContent()).toContain('Quote');
    expect(await items.first().getAttribute('class')).toBe('at');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.inputValue('[data-testid="arg-table"]')).toBe('Quote');
    expect(await page.locator('[data-testid="command-palette"]').count()).toBe(0);

    await page.keyboard.press('Control+k');
    await page.fill('[data-testid="palette-search"]', 'saved half hour');
    await expect.poll(() => page.locator('[data-testid="palette-list"] li').first().textContent()).toContain('half hour of trades');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.inputValue('[data-testid="arg-table"]')).toBe('Trade');
    expect(await page.inputValue('[data-testid="arg-startTS"]')).toBe('2024.03.06D14:30:00');

    await page.keyboard.press('Control+k');
    await page.fill('[data-testid="palette-search"]', 'operation getstats');
    await expect.poll(() => page.locator('[data-testid="palette-list"] li').first().textContent()).toContain('getStats');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.op-tabs button.active').textContent()).toBe('getStats');

    await page.locator('body').click({ position: { x: 5, y: 790 } });
    await page.keyboard.press('?');
    const keys = page.locator('[data-testid="keys-panel"]');
    await expect.poll(() => keys.count()).toBe(1);
    expect(await keys.textContent()).toContain('Ctrl+K');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-shortcuts.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => keys.count()).toBe(0);
  });
});
