/**
 * What the app shows after the user changes something is about what they asked, never about the run
 * before (issue 26): the tick chart's time axis after a re-run in another zone or on another day is
 * the axis a fresh page draws; Export is never locked by a download that was handed over; the zone's
 * offset badge is the offset of the window's dates; an operation's error stays with that operation.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, openApp, rerun as rerunForm, runLinked, settled } from './harness.js';

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '2', '--instruments', '4', '--trades-per-day', '6000'], 'tickscope-trust-');
  page = app.page;
});

afterAll(async () => app?.close());

type Args = Record<string, unknown>;

/** Opens a fresh page on a request (as a shared link does), runs it and waits for its chart. */
async function runFresh(op: string, args: Args): Promise<void> {
  await runLinked(app, op, args);
  await page.waitForSelector('[data-testid="chart-info"]');
}

/** Runs the form (again) and waits for its result and its chart. */
async function rerun(): Promise<void> {
  await rerunForm(page);
  await page.waitForSelector('[data-testid="chart-info"]');
}

/**
 * The pixels of the chart's time axis (its canvases, read in the page), and how many of them are
 * drawn (differ from the axis' background), once the chart has painted.
 */
async function axis(): Promise<{ pixels: string; inked: number }> {
  await page.mouse.move(1, 1); // no crosshair label on the axis
  await settled(page);
  return page.evaluate(() => {
    const rows = document.querySelectorAll('[data-testid="chart"] table tr');
    const canvases = [...rows[rows.length - 1]!.querySelectorAll('canvas')].sort((a, b) => b.width - a.width);
    const c = canvases[0]!;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let inked = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) inked++;
    return { pixels: c.toDataURL(), inked };
  });
}

const DAY1 = { table: 'Trade', idList: ['AAPL'], startTS: '2024.03.06D00:00:00', endTS: '2024.03.07D00:00:00' };
const DAY2 = { ...DAY1, startTS: '2024.03.07D00:00:00', endTS: '2024.03.08D00:00:00' };

describe('what the app shows after a change', () => {
  it("labels the tick chart's axis in the new run's zone and day, as a fresh page does", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await runFresh('getTicks', DAY1);
    const utc = await axis();
    expect(utc.inked).toBeGreaterThan(200);
    // the same request in New York time, run from the form
    await page.fill('[data-testid="arg-outputTZ"]', 'America/New_York');
    await page.keyboard.press('Escape');
    await rerun();
    const rerunNy = await axis();
    expect(rerunNy.inked).toBeGreaterThan(200);
    expect(rerunNy.pixels).not.toBe(utc.pixels);
    await page.screenshot({ path: join(ARTIFACTS, 'trust-axis-rerun-ny.png') });
    await runFresh('getTicks', { ...DAY1, outputTZ: 'America/New_York' });
    expect((await axis()).pixels).toBe(rerunNy.pixels);

    // another day after the first
    await runFresh('getTicks', DAY1);
    await page.fill('[data-testid="arg-startTS"]', DAY2.startTS);
    await page.fill('[data-testid="arg-endTS"]', DAY2.endTS);
    await rerun();
    const rerunDay2 = await axis();
    expect(rerunDay2.inked).toBeGreaterThan(200);
    expect(rerunDay2.pixels).not.toBe(utc.pixels);
    await runFresh('getTicks', DAY2);
    expect((await axis()).pixels).toBe(rerunDay2.pixels);
  });

  it('exports at every click: a fast download frees Export at once', async () => {
    await runFresh('getTicks', DAY1);
    const names: string[] = [];
    page.on('download', (d) => names.push(d.suggestedFilename()));
    await page.click('[data-testid="export"]');
    await expect.poll(() => names.length, { timeout: 5000 }).toBe(1);
    await expect.poll(() => page.locator('[data-testid="notice"]').textContent()).toMatch(/^Downloaded /);
    // a second click at once is a second download, not dropped
    await page.click('[data-testid="export"]');
    await expect.poll(() => names.length, { timeout: 5000 }).toBe(2);
    expect(names[1]).toBe(names[0]);
    expect(await page.locator('[data-testid="exporting"]').count()).toBe(0);
  });

  it("shows the zone's offset on the window's dates, both when the window crosses a change", async () => {
    await runFresh('getTicks', DAY1);
    await page.fill('[data-testid="arg-outputTZ"]', 'America/New_York');
    await page.keyboard.press('Escape');
    await page.fill('[data-testid="arg-startTS"]', '2013.10.08D13:30');
    await page.fill('[data-testid="arg-endTS"]', '2013.10.08D20:00');
    const badge = page.locator('[data-testid="arg-outputTZ"] ~ [data-testid="zone-offset"]');
    await expect.poll(() => badge.textContent()).toBe('UTC-04:00');
    await page.fill('[data-testid="arg-startTS"]', '2024.03.08');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.12');
    await expect.poll(() => badge.textContent()).toBe('UTC-05:00 → -04:00');
    for (const [width, height] of [[1280, 800], [1600, 1000]] as const) {
      await page.setViewportSize({ width, height });
      // the panes re-lay out after a resize (a ResizeObserver, then React): measure once they have
      await settled(page);
      const box = (await badge.boundingBox())!;
      const field = (await page.locator('[data-testid="arg-outputTZ"]').boundingBox())!;
      // the badge sits inside the field, whole
      expect(box.x + box.width).toBeLessThanOrEqual(field.x + field.width + 1);
      expect(await badge.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, `trust-zone-badge-${width}.png`) });
    }
  });

  it("keeps an operation's error with that operation", async () => {
    await runFresh('getTicks', DAY1);
    await page.click('nav.op-tabs >> text=getStats');
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D15:30:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D14:30:00');
    await page.click('[data-testid="run"]');
    await expect.poll(() => page.locator('[data-testid="error"]').textContent()).toBe('error 23: startTS >= endTS');
    // getTicks' own result is back with its form; the error is getStats'
    await page.click('nav.op-tabs >> text=getTicks');
    expect(await page.locator('[data-testid="error"]').count()).toBe(0);
    await expect.poll(() => page.locator('[data-testid="rows"]').textContent()).toMatch(/rows/);
    await page.click('nav.op-tabs >> text=getStats');
    await expect.poll(() => page.locator('[data-testid="error"]').textContent()).toBe('error 23: startTS >= endTS');
  });
});
