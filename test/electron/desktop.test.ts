/**
 * The desktop layer with the electron module mocked: everything it asks of Electron is recorded, and
 * the IPC handlers run against a real engine over a real database on disk.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppInfo, ConnectionInfo, ImportPreview, ImportReportInfo, RunResponse } from '../../engine/contract.js';
import type { BrowserWindowOptions, ElectronApi, IpcMainInvokeEventLike, MenuItemTemplate } from '../../electron/electron-api.js';
import { startDesktop } from '../../electron/desktop.js';
import { INVOKE_CHANNELS, MENU_CHANNEL } from '../../electron/ipc-contract.js';
import { csv, makeDb, tempDir } from '../helpers/db.js';
import { loadSettings } from '../../engine/executor/settings.js';
import type { QueryService } from '../../engine/service/query-service.js';
import { leanMap } from '../helpers/lean.js';

type Handler = (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown;

function mockElectron(savePath: string | undefined) {
  const calls = {
    windows: [] as BrowserWindowOptions[],
    handlers: new Map<string, Handler>(),
    sent: [] as unknown[][],
    menu: [] as MenuItemTemplate[],
    external: [] as string[],
    loaded: [] as string[],
    userData: '',
    openHandler: undefined as undefined | ((d: { url: string }) => { action: string }),
    navigate: undefined as undefined | ((e: { preventDefault(): void }, url: string) => void),
    messages: [] as Array<{ title: string; detail: string }>,
    /** The folder the open dialog answers (undefined: cancelled), and the titles it was shown with. */
    folder: undefined as string | undefined,
    opened: [] as string[],
    /** The files the open dialog answers when it picks files (undefined: cancelled), and what it was asked. */
    files: undefined as string[] | undefined,
    fileDialogs: [] as Array<{ title: string; properties: string[]; extensions: string[] }>,
  };
  class BrowserWindow {
    readonly webContents = {
      send: (...args: unknown[]) => calls.sent.push(args),
      setWindowOpenHandler: (h: (d: { url: string }) => { action: 'allow' | 'deny' }) => (calls.openHandler = h),
      on: (_event: 'will-navigate', l: (e: { preventDefault(): void }, url: string) => void) => (calls.navigate = l),
    };
    constructor(opts: BrowserWindowOptions) {
      calls.windows.push(opts);
    }
    loadFile(path: string): Promise<void> {
      calls.loaded.push(path);
      return Promise.resolve();
    }
    once(): void {}
    show(): void {}
  }
  const electron: ElectronApi = {
    app: {
      whenReady: () => Promise.resolve(),
      setName: () => undefined,
      setPath: (_n, p) => (calls.userData = p),
      on: () => undefined,
      quit: () => undefined,
    },
    BrowserWindow,
    ipcMain: { handle: (channel, listener) => void calls.handlers.set(channel, listener) },
    dialog: {
      showSaveDialog: () => Promise.resolve(savePath ? { canceled: false, filePath: savePath } : { canceled: true }),
      showOpenDialog: (_w, o) => {
        if (o.properties.includes('openFile')) {
          calls.fileDialogs.push({ title: o.title, properties: o.properties, extensions: o.filters?.flatMap((f) => f.extensions) ?? [] });
          return Promise.resolve(calls.files ? { canceled: false, filePaths: calls.files } : { canceled: true, filePaths: [] });
        }
        return Promise.resolve(void calls.opened.push(o.title)).then(() => (calls.folder ? { canceled: false, filePaths: [calls.folder] } : { canceled: true, filePaths: [] }));
      },
      showErrorBox: () => undefined,
      showMessageBox: (o) => Promise.resolve(void calls.messages.push({ title: o.title, detail: o.detail })),
    },
    Menu: { buildFromTemplate: (t) => (calls.menu = t), setApplicationMenu: () => undefined },
    shell: { openExternal: (url) => Promise.resolve(void calls.external.push(url)) },
  };
  return { electron, calls };
}

const APP_FRAME: IpcMainInvokeEventLike = { senderFrame: { url: 'file:///app/dist/renderer/index.html' } };
const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [
  ['2024.03.06D14:30:00.000000001', 'AAPL', '189.5', '100'],
  ['2024.03.06D14:30:00.000000001', 'MSFT', '401.25', '7'],
]);

async function start(savePath?: string, dbs?: string[], over: Partial<ReturnType<typeof loadSettings>> = {}, userDataDir = '/home/u/.config/Tickscope') {
  const { electron, calls } = mockElectron(savePath);
  let demoCalls = 0;
  const demoDb = makeDb({ Trade: TRADES }, 'demo');
  const desktop = await startDesktop(electron, {
    dbs: dbs ?? [],
    electronDir: '/app/dist/electron',
    rendererDir: '/app/dist/renderer',
    userDataDir,
    ensureDemo: async () => {
      demoCalls++;
      return demoDb.dir;
    },
    settings: { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1, ...over },
  });
  services.push(await desktop.ready);
  const invoke = (channel: string, ...args: unknown[]): Promise<unknown> =>
    Promise.resolve(calls.handlers.get(channel)!(APP_FRAME, ...args));
  return { calls, invoke, demoCalls: () => demoCalls };
}

const services: QueryService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('desktop app (electron mocked)', () => {
  it('answers startup with the demo generation\'s progress until the engine is ready, then null', async () => {
    const { electron, calls } = mockElectron(undefined);
    const demoDb = makeDb({ Trade: TRADES }, 'demo');
    let finish!: () => void;
    const desktop = await startDesktop(electron, {
      dbs: [],
      electronDir: '/app/dist/electron',
      rendererDir: '/app/dist/renderer',
      userDataDir: '/home/u/.config/Tickscope',
      ensureDemo: (progress) =>
        new Promise<string>((resolve) => {
          progress('Creating the demo database (first launch only)...');
          progress('demo: 2024-03-06 (1/5): 200000 trades');
          finish = () => resolve(demoDb.dir);
        }),
      settings: { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 },
    });
    const startup = (): Promise<unknown> => Promise.resolve(calls.handlers.get(INVOKE_CHANNELS.startup)!(APP_FRAME));
    expect(await startup()).toBe('demo: 2024-03-06 (1/5): 200000 trades');
    finish();
    services.push(await desktop.ready);
    expect(await startup()).toBeNull();
    expect(((await calls.handlers.get(INVOKE_CHANNELS.info)!(APP_FRAME)) as AppInfo).assemblies[0]!.name).toBe('demo');
  });

  it('serves its engine as a gateway on loopback when the setting asks, telling the user its one-off client once', async () => {
    const port = await freePort();
    const { calls } = await start(undefined, undefined, { gatewayPort: port });
    expect(calls.messages).toHaveLength(1);
    const detail = calls.messages[0]!.detail;
    expect(detail).toContain(`REST at http://127.0.0.1:${port}/servicegateway/fsi/<operation>`);
    const [, id, secret] = /client_id (\S+)\s+client_secret (\S+)/.exec(detail)!;
    const tok = await fetch(`http://127.0.0.1:${port}/auth/realms/tickscope/protocol/openid-connect/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id!, client_secret: secret! }) });
    const { access_token } = (await tok.json()) as { access_token: string };
    const r = await fetch(`http://127.0.0.1:${port}/servicegateway/fsi/getTicks`, { method: 'POST', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ table: 'Trade' }) });
    expect(((await r.json()) as { payload: unknown[] }).payload).toHaveLength(2);
    // off by default
    expect((await start()).calls.messages).toHaveLength(0);
  });

  it('opens one locked-down window on the built renderer', async () => {
    const { calls } = await start();
    expect(calls.windows).toHaveLength(1);
    expect(calls.windows[0]!.webPreferences).toEqual({
      preload: join('/app/dist/electron', 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    });
    expect(calls.loaded).toEqual([join('/app/dist/renderer', 'index.html')]);
    expect(calls.userData).toBe('/home/u/.config/Tickscope');
    // No navigation and no new windows; https links go to the system browser.
    let prevented = false;
    calls.navigate!({ preventDefault: () => (prevented = true) }, 'https://evil.example');
    expect(prevented).toBe(true);
    expect(calls.openHandler!({ url: 'https://www.tradingview.com/' })).toEqual({ action: 'deny' });
    expect(calls.openHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(calls.external).toEqual(['https://www.tradingview.com/']);
  });

  it('registers a handler for every channel of the IPC contract, refusing other frames', async () => {
    const { calls } = await start();
    expect([...calls.handlers.keys()].sort()).toEqual(Object.values(INVOKE_CHANNELS).sort());
    const info = calls.handlers.get(INVOKE_CHANNELS.info)!;
    expect(() => info({ senderFrame: { url: 'https://evil.example/' } })).toThrow(/refused a call from outside the app/);
  });

  it('uses the demo database when no --db is given, and the given ones otherwise', async () => {
    const demo = await start();
    expect(demo.demoCalls()).toBe(1);
    const info = (await demo.invoke(INVOKE_CHANNELS.info)) as AppInfo;
    expect(info.mode).toBe('electron');
    expect(info.assemblies.map((a) => a.name)).toEqual(['demo']);
    const other = makeDb({}, 'research');
    const given = await start(undefined, [other.dir]);
    expect(given.demoCalls()).toBe(0);
    expect(((await given.invoke(INVOKE_CHANNELS.info)) as AppInfo).assemblies.map((a) => a.name)).toEqual(['research']);
  });

  it('opens a kdb+ database from the folder dialog, remembered in the user data folder', async () => {
    const home = tempDir();
    const { invoke, calls } = await start(undefined, undefined, {}, home);
    // the dialog cancelled: nothing chosen
    expect(await invoke(INVOKE_CHANNELS.pickFolder, 'Open database')).toBeNull();
    calls.folder = join(process.cwd(), 'test/fixtures/kdb-advancedkdb/hdb');
    expect(await invoke(INVOKE_CHANNELS.pickFolder, 'Open database')).toBe(calls.folder);
    expect(calls.opened).toEqual(['Open database', 'Open database']);
    const connections = (await invoke(INVOKE_CHANNELS.openDatabase, { dir: calls.folder })) as ConnectionInfo[];
    expect(connections[0]!.databases!.map((d) => [d.name, d.kind, d.opened])).toEqual([['demo', 'tickscope', false], ['hdb', 'kdb', true]]);
    const r = (await invoke(INVOKE_CHANNELS.run, 'getTicks', { scope: { assembly: 'hdb' }, table: 'bid', startTS: '2019.06.24D00:00:00', endTS: '2019.06.25D00:00:00' })) as RunResponse;
    // README: 2019.06.24 bid 8 rows
    expect(r.ok && r.rows).toBe(8);
    expect(JSON.parse(readFileSync(join(home, 'databases.json'), 'utf8'))).toEqual({ databases: [{ dir: calls.folder }] });
    await expect(invoke(INVOKE_CHANNELS.closeDatabase, 7)).rejects.toThrow(/name: 7 is not a string/);
    expect(((await invoke(INVOKE_CHANNELS.closeDatabase, 'hdb')) as ConnectionInfo[])[0]!.databases!.map((d) => d.name)).toEqual(['demo']);
  });

  it('picks files to import in the native dialog, previews and imports them through IPC', async () => {
    const { invoke, calls } = await start();
    // cancelled: nothing chosen
    expect(await invoke(INVOKE_CHANNELS.pickFiles, 'Import files')).toBeNull();
    const dir = join(tempDir(), 'aapl');
    mkdirSync(dir);
    const file = join(dir, '20131008_trade.csv');
    writeFileSync(file, '34200000,4869900,100,NASDAQ\n34200457,4870000,300,NASDAQ\n');
    calls.files = [file];
    expect(await invoke(INVOKE_CHANNELS.pickFiles, 7)).toEqual([file]);
    expect(calls.fileDialogs).toEqual([
      { title: 'Import files', properties: ['openFile', 'multiSelections'], extensions: ['csv', 'parquet', 'arrow', 'arrows', 'ipc', 'feather'] },
      { title: 'Import files', properties: ['openFile', 'multiSelections'], extensions: ['csv', 'parquet', 'arrow', 'arrows', 'ipc', 'feather'] },
    ]);
    const map = leanMap();
    const preview = (await invoke(INVOKE_CHANNELS.importPreview, { paths: [file], map })) as ImportPreview;
    expect(preview.sourceRows[0]).toEqual(['34200000', '4869900', '100', 'NASDAQ']);
    expect(preview.mapped!.rows[0]!.slice(0, 4)).toEqual(['2013-10-08T09:30:00.000000000-04:00', 'AAPL', '', '486.99']);
    const report = (await invoke(INVOKE_CHANNELS.importFiles, { paths: [file], map }, 'imp-ipc')) as ImportReportInfo;
    expect([report.rows, report.partitions, report.written]).toEqual([2, ['2013-10-08'], true]);
    await expect(invoke(INVOKE_CHANNELS.importFiles, { paths: [file], map }, 7)).rejects.toThrow(/queryId: 7 is not a string/);
  });

  it('runs queries, pages rows and validates handler input', async () => {
    const { invoke } = await start();
    const r = (await invoke(INVOKE_CHANNELS.run, '.fsi.getTicks', { table: 'Trade' })) as Extract<RunResponse, { ok: true }>;
    expect([r.ok, r.rows, r.ids]).toEqual([true, 2, ['AAPL', 'MSFT']]);
    expect(await invoke(INVOKE_CHANNELS.page, r.resultId, 0, 1)).toEqual({ offset: 0, rows: [['2024-03-06T14:30:00.000000001', 'AAPL', '', '189.5', '100', '', '', '', '', '', '', '', '', '']] });
    await expect(invoke(INVOKE_CHANNELS.run, 42, {})).rejects.toThrow(/operation: 42 is not a string/);
    await expect(invoke(INVOKE_CHANNELS.identifiers, 'demo', 7)).rejects.toThrow(/table: 7 is not a string/);
    const failed = (await invoke(INVOKE_CHANNELS.run, 'getTicks', { table: 'Nope' })) as RunResponse;
    expect(failed.ok ? 0 : failed.header.ac).toBe(6);
  });

  it('exports the whole result as CSV to the file chosen in the save dialog', async () => {
    const path = join(tempDir(), 'out.csv');
    const { invoke } = await start(path);
    const r = (await invoke(INVOKE_CHANNELS.run, 'getTicks', { table: 'Trade', columns: ['price'] })) as Extract<RunResponse, { ok: true }>;
    expect(await invoke(INVOKE_CHANNELS.exportCsv, r.resultId, 'x.csv')).toEqual({ saved: true, path, rows: 2 });
    expect(readFileSync(path, 'utf8')).toBe('eventTimestamp,price\n2024-03-06T14:30:00.000000001,189.5\n2024-03-06T14:30:00.000000001,401.25\n');
    // written beside the target and renamed: no part file stays
    expect(existsSync(`${path}.part`)).toBe(false);
    // an export that fails leaves no file at all, and the id it was given answers nothing after it
    const failing = join(tempDir(), 'failed.csv');
    const broken = await start(failing);
    await expect(broken.invoke(INVOKE_CHANNELS.exportCsv, 'no-such-result', 'x.csv', 'csv', 'export-9')).rejects.toThrow(/resultId: "no-such-result" is not a result held here/);
    expect([existsSync(failing), existsSync(`${failing}.part`)]).toEqual([false, false]);
    expect(await broken.invoke(INVOKE_CHANNELS.progress, 'export-9')).toBeNull();
    await expect(broken.invoke(INVOKE_CHANNELS.exportCsv, r.resultId, 'x.csv', 'csv', 7)).rejects.toThrow(/exportId: 7 is not a string/);
    const cancelled = await start(undefined);
    const r2 = (await cancelled.invoke(INVOKE_CHANNELS.run, 'getTicks', { table: 'Trade' })) as Extract<RunResponse, { ok: true }>;
    expect(await cancelled.invoke(INVOKE_CHANNELS.exportCsv, r2.resultId, 'x.csv')).toEqual({ saved: false });
  });

  it('exports the whole result as Parquet, rendered in the worker holding it; an unknown format is refused', async () => {
    const path = join(tempDir(), 'out.parquet');
    const { invoke } = await start(path);
    const r = (await invoke(INVOKE_CHANNELS.run, 'getTicks', { table: 'Trade', columns: ['price'] })) as Extract<RunResponse, { ok: true }>;
    expect(await invoke(INVOKE_CHANNELS.exportCsv, r.resultId, 'x.parquet', 'parquet')).toEqual({ saved: true, path });
    const bytes = readFileSync(path);
    expect([bytes.subarray(0, 4).toString(), bytes.subarray(-4).toString()]).toEqual(['PAR1', 'PAR1']);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const rows = (await duck.runAndReadAll(`SELECT epoch_ns(eventTimestamp) AS ns, price FROM read_parquet('${path}') ORDER BY price`)).getRowObjects();
    // the same rows as the CSV export above (DuckDB reads a NANOS timestamp to the microsecond)
    expect(rows).toEqual([{ ns: 1709735400000000000n, price: 189.5 }, { ns: 1709735400000000000n, price: 401.25 }]);
    await expect(invoke(INVOKE_CHANNELS.exportCsv, r.resultId, 'x.xml', 'xml')).rejects.toThrow('format: "xml" is not an export format; expected csv, arrow, parquet');
  });

  it('puts Run and Export CSV in the menu with their shortcuts, sent to the renderer', async () => {
    const { calls } = await start();
    const items = calls.menu.flatMap((m) => m.submenu ?? []);
    const run = items.find((i) => i.label === 'Run')!;
    const exp = items.find((i) => i.label === 'Export CSV…')!;
    expect([run.accelerator, exp.accelerator]).toEqual(['CmdOrCtrl+Enter', 'CmdOrCtrl+Shift+E']);
    run.click!();
    exp.click!();
    expect(calls.sent).toEqual([
      [MENU_CHANNEL, 'run'],
      [MENU_CHANNEL, 'export'],
    ]);
  });
});
