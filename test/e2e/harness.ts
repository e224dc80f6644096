/**
 * End-to-end set-up shared by the browser tests: a demo database made by the CLI, `tickscope serve`
 * started as a process, and Debian's Chromium driven by Playwright.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
export const ARTIFACTS = join(process.cwd(), 'test-results');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export interface App {
  /** The temporary folder holding the demo database (`<dir>/demo`). */
  readonly dir: string;
  readonly db: string;
  readonly url: string;
  readonly page: Page;
  close(): Promise<void>;
}

function startServer(db: string): Promise<{ proc: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    // its own user data folder: the databases it opens are remembered there, not in the user's
    const proc = spawn(process.execPath, [CLI, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TICKSCOPE_HOME: join(db, '..', 'home') } });
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /at (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1]! });
    });
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

/** Creates a demo database with these `tickscope demo` options, serves it and opens it in Chromium. */
export async function openApp(demoArgs: readonly string[], prefix: string): Promise<App> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(ARTIFACTS, { recursive: true });
  const db = join(dir, 'demo');
  execFileSync(process.execPath, [CLI, 'demo', '--db', db, ...demoArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
  const { proc, url } = await startServer(db);
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}; install Debian's chromium or set CHROMIUM_PATH`);
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true })).newPage();
  page.on('pageerror', (e) => {
    throw e;
  });
  await page.goto(url);
  await page.waitForSelector('[data-testid="arg-table"] option[value="Trade"]', { state: 'attached' });
  return {
    dir,
    db,
    url,
    page,
    close: async () => {
      await browser.close();
      proc.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What `tickscope call` prints for a getTicks body (the payload rows). */
export function callPayload(db: string, body: string): Array<Record<string, unknown>> {
  const out = execFileSync(process.execPath, [CLI, 'call', '--db', db, '.fsi.getTicks', body], { maxBuffer: 1 << 28 });
  return (JSON.parse(out.toString()) as { payload: Array<Record<string, unknown>> }).payload;
}

/** Runs the form (again) and waits for the new result: the status line's rows leave while it runs. Returns the rows shown. */
export async function rerun(page: Page): Promise<number> {
  const old = await page.$('[data-testid="rows"]');
  await page.click('[data-testid="run"]');
  await old?.waitForElementState('hidden');
  const rows = await page.waitForSelector('[data-testid="rows"]');
  return Number((await rows.textContent())!.split(' rows')[0]!.replace(/,/g, ''));
}

/** Puts a request in the form through the URL (as a shared link does) on a fresh page and runs it; returns the rows shown. */
export async function runLinked(app: App, op: string, args: Record<string, unknown>): Promise<number> {
  const { page } = app;
  await page.goto(`${app.url}#op=${op}&args=${encodeURIComponent(JSON.stringify(args))}`);
  await page.reload();
  await page.waitForSelector('[data-testid="run"]');
  if (typeof args['startTS'] === 'string') {
    await page.waitForFunction((v) => (document.querySelector('[data-testid="arg-startTS"]') as HTMLInputElement | null)?.value === v, args['startTS']);
  }
  return rerun(page);
}

/**
 * Waits until the page has settled: the layout of every element with a test id, and the pixels of
 * every canvas, unchanged over three animation frames in a row (a resize re-laid out, a chart
 * repainted). What a fixed wait stood for, observed instead (capped at 10 s).
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __settle?: { last: string; same: number } }).__settle = { last: '', same: 0 };
  });
  await page.waitForFunction(
    () => {
      const w = window as unknown as { __settle: { last: string; same: number } };
      const boxes = [...document.querySelectorAll('[data-testid]')].map((e) => {
        const r = e.getBoundingClientRect();
        return `${r.x},${r.y},${r.width},${r.height}`;
      });
      const inks = [...document.querySelectorAll('canvas')].map((c) => {
        if (c.width === 0 || c.height === 0) return '0';
        const d = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data;
        let h = 0;
        if (d) for (let i = 0; i < d.length; i += 4) h = (h * 31 + d[i]! + d[i + 1]! * 7 + d[i + 2]! * 13) | 0;
        return String(h);
      });
      const now = `${innerWidth}x${innerHeight}|${boxes.join(';')}|${inks.join(';')}`;
      w.__settle.same = now === w.__settle.last ? w.__settle.same + 1 : 0;
      w.__settle.last = now;
      return w.__settle.same >= 3;
    },
    undefined,
    { polling: 'raf', timeout: 10_000 },
  );
}

/** Screenshots of the page at 1280×800 and 1600×1000 (settled first), `<prefix>-<width>.png` in ARTIFACTS; the viewport put back after. */
export async function shotsAtSizes(page: Page, prefix: string, hover?: () => Promise<void>): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [1600, 1000],
  ] as const) {
    await page.setViewportSize({ width, height });
    await settled(page);
    await hover?.();
    await page.screenshot({ path: join(ARTIFACTS, `${prefix}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Pixels of the chart's canvases that differ from the chart background. */
export async function paintedPixels(p: Page): Promise<number> {
  return p.evaluate(() => {
    let painted = 0;
    for (const canvas of document.querySelectorAll<HTMLCanvasElement>('[data-testid="chart"] canvas')) {
      const ctx = canvas.getContext('2d');
      if (!ctx || canvas.width === 0 || canvas.height === 0) continue;
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 0; i < data.length; i += 4) {
        const bg = data[i] === 0x0f && data[i + 1] === 0x11 && data[i + 2] === 0x15;
        if (data[i + 3]! > 0 && !bg) painted++;
      }
    }
    return painted;
  });
}
