/**
 * The desktop app: one window over the embedded engine. Everything Electron-specific is here, written
 * against ElectronApi so tests can run it with a mock. main.ts only passes the real module in.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type BackendApi, type ChartRequest, EXPORT_FORMATS } from '../engine/contract.js';
import { checkValueBounds } from '../engine/core/bounded-input.js';
import { TickscopeError } from '../engine/core/errors.js';
import { startEmbeddedGateway } from '../engine/gateway/embedded.js';
import type { ProcessSettings } from '../engine/executor/settings.js';
import { QueryService } from '../engine/service/query-service.js';
import { REMEMBERED_FILE } from '../engine/service/databases.js';
import type { MountSpec } from '../engine/storage/mount.js';
import type { BrowserWindowLike, ElectronApi, IpcMainInvokeEventLike, MenuItemTemplate } from './electron-api.js';
import { INVOKE_CHANNELS, MENU_CHANNEL, type MenuCommand } from './ipc-contract.js';

export interface DesktopOptions {
  /** Database folders to mount (a kdb+ one with its settings file); empty means the demo database. */
  readonly dbs: ReadonlyArray<string | MountSpec>;
  /** Folder holding preload.cjs (dist/electron). */
  readonly electronDir: string;
  /** Folder holding the built renderer (dist/renderer). */
  readonly rendererDir: string;
  /** User data folder (app.getPath('userData') equivalent). */
  readonly userDataDir: string;
  /** Creates the demo database off the main thread; resolves to its folder. */
  /** Makes (or migrates) the demo database, reporting progress; resolves with its folder. */
  readonly ensureDemo: (progress: (msg: string) => void) => Promise<string>;
  /** Process settings (workers, limits, timeouts): queries run on the executor's workers. */
  readonly settings: ProcessSettings;
}

export interface Desktop {
  readonly window: BrowserWindowLike;
  /** Resolves once the engine is open (after first-launch demo generation). */
  readonly ready: Promise<QueryService>;
}

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string') throw new TickscopeError('badRequest', `${name}: ${JSON.stringify(v)} is not a string`);
  return v;
};

/** Writes CSV chunks to a file, respecting back-pressure; returns the line count less the header. */
async function writeChunks(path: string, chunks: AsyncIterable<Uint8Array>): Promise<number> {
  // written beside the target and renamed when whole: a cancelled or failed export leaves no part file
  const it = chunks[Symbol.asyncIterator]();
  // the first chunk before any file: an export that fails at once (an unknown result) creates nothing
  let next = await it.next();
  const part = `${path}.part`;
  const out = createWriteStream(part);
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
  });
  let lines = 0;
  try {
    for (; !next.done; next = await it.next()) {
      const chunk = next.value;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    out.end();
    await done;
    await rename(part, path);
  } catch (e) {
    // closed (its open finished) before it is removed, so nothing recreates it
    await new Promise<void>((resolve) => {
      if (out.closed) return resolve();
      out.once('close', () => resolve());
      out.destroy();
    });
    await rm(part, { force: true });
    await it.return?.();
    throw e;
  }
  // the header line is not a row
  return Math.max(0, lines - 1);
}

/** The handlers of every IPC channel, each validating its input before it reaches the engine. */
export function ipcHandlers(
  service: () => Promise<QueryService>,
  saveDialog: (suggested: string) => Promise<string | undefined>,
  startup: () => string | null = () => null,
  folderDialog: (title: string) => Promise<string | undefined> = () => Promise.resolve(undefined),
  filesDialog: (title: string) => Promise<readonly string[] | undefined> = () => Promise.resolve(undefined),
): { [K in keyof BackendApi]-?: (...args: unknown[]) => Promise<unknown> } {
  return {
    info: async () => (await service()).info(),
    // answered while the engine is still starting (info waits until it is ready)
    startup: async () => startup(),
    run: async (operation, args, queryId) => (await service()).run(str(operation, 'operation'), args ?? {}, queryId === undefined ? undefined : str(queryId, 'queryId')),
    progress: async (queryId) => (await service()).progress(str(queryId, 'queryId')),
    cancel: async (queryId) => (await service()).cancel(str(queryId, 'queryId')),
    page: async (resultId, offset, limit, form) => (await service()).page(resultId, offset, limit, form ?? 'grid'),
    sort: async (resultId, sortCols) => (await service()).sort(resultId, sortCols),
    chart: async (req) => {
      if (typeof req !== 'object' || req === null) throw new TickscopeError('badRequest', 'chart: expected a request object');
      return (await service()).chart(req as ChartRequest);
    },
    identifiers: async (assembly, table) => (await service()).identifiers(str(assembly, 'assembly'), str(table, 'table')),
    table: async (resultId) => (await service()).table(resultId),
    // remote gateways: the secret stays in this process's memory (never on disk, never in the page)
    connections: async () => (await service()).connections(),
    addConnection: async (spec) => (await service()).addConnection(spec),
    useConnection: async (id) => (await service()).useConnection(id),
    removeConnection: async (id) => (await service()).removeConnection(id),
    // Open database…: a Tickscope database or a kdb+ one, remembered for the next launch
    openDatabase: async (spec) => (await service()).openDatabase(spec),
    closeDatabase: async (name) => (await service()).closeDatabase(str(name, 'name')),
    pickFolder: async (title) => (await folderDialog(typeof title === 'string' && title ? title : 'Open database')) ?? null,
    // Import…: the files to read (the folder button above picks a folder); their paths, not their bytes
    pickFiles: async (title) => (await filesDialog(typeof title === 'string' && title ? title : 'Import files')) ?? null,
    importPreview: async (req) => (await service()).previewImport(req),
    importFiles: async (req, queryId) => (await service()).importFiles(req, queryId === undefined ? undefined : str(queryId, 'queryId')),
    exportCsv: async (resultId, suggested, format, exportId) => {
      const fmt = EXPORT_FORMATS.find((f) => f === (format ?? 'csv'));
      if (!fmt) throw new TickscopeError('badRequest', `format: ${JSON.stringify(format)} is not an export format; expected ${EXPORT_FORMATS.join(', ')}`);
      const svc = await service();
      const path = await saveDialog(typeof suggested === 'string' && suggested ? suggested : `tickscope-result.${fmt}`);
      if (!path) return { saved: false };
      const lines = await writeChunks(path, svc.exportFile(resultId, fmt, exportId === undefined ? undefined : str(exportId, 'exportId')));
      // a CSV's rows are its lines less the header; another file's are the result's (the app knows them)
      return fmt === 'csv' ? { saved: true, path, rows: lines } : { saved: true, path };
    },
  };
}

function menuTemplate(send: (cmd: MenuCommand) => void): MenuItemTemplate[] {
  return [
    {
      label: 'File',
      submenu: [
        { label: 'Export CSV…', accelerator: 'CmdOrCtrl+Shift+E', click: () => send('export') },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    { label: 'Query', submenu: [{ label: 'Run', accelerator: 'CmdOrCtrl+Enter', click: () => send('run') }] },
    { label: 'Edit', submenu: [{ role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }] },
    { label: 'View', submenu: [{ role: 'reload' }, { role: 'toggleDevTools' }, { role: 'togglefullscreen' }] },
  ];
}

/** Starts the desktop app: engine, IPC handlers, menu and the window. */
export async function startDesktop(electron: ElectronApi, opts: DesktopOptions): Promise<Desktop> {
  const { app, BrowserWindow, ipcMain, dialog, Menu, shell } = electron;
  app.setName('Tickscope');
  app.setPath('userData', opts.userDataDir);
  app.on('window-all-closed', () => app.quit());
  await app.whenReady();

  // what the window's status line shows until the engine answers (the first launch makes the demo)
  let starting: string | null = 'Opening the database…';
  const ready: Promise<QueryService> = (async () => {
    const dbs = opts.dbs.length > 0 ? [...opts.dbs] : [await opts.ensureDemo((msg) => (starting = msg))];
    // the main process only relays: queries run on the executor's workers
    // the databases opened from the app last time come back after these
    const service = await QueryService.start(dbs, opts.settings, 'electron', { remember: join(opts.userDataDir, REMEMBERED_FILE) });
    app.on('will-quit', () => void service.close());
    // the gateway setting: the same engine served on loopback to scripts and q sessions
    const gateway = await startEmbeddedGateway(service, opts.settings, opts.userDataDir);
    if (gateway) {
      app.on('will-quit', () => void gateway.close());
      void dialog.showMessageBox({ type: 'info', title: 'Tickscope gateway', message: 'Tickscope is serving its engine as a gateway', detail: gateway.summary });
    }
    starting = null;
    return service;
  })();
  ready.catch((e: unknown) => dialog.showErrorBox('Tickscope could not open its database', String((e as Error).message ?? e)));

  const window = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    title: 'Tickscope',
    backgroundColor: '#0f1115',
    show: false,
    webPreferences: {
      preload: join(opts.electronDir, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  // The app never navigates or opens windows; links (the chart library's attribution) go to the browser.
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());

  const rendererIndex = join(opts.rendererDir, 'index.html');
  const fromApp = (e: IpcMainInvokeEventLike): boolean => (e.senderFrame?.url ?? '').startsWith('file://');
  const handlers = ipcHandlers(
    () => ready,
    async (suggested) => {
      const ext = suggested.slice(suggested.lastIndexOf('.') + 1);
      const kind = ext === 'parquet' ? 'Parquet' : ext === 'arrow' ? 'Arrow' : 'CSV';
      const r = await dialog.showSaveDialog(window, {
        title: `Export ${kind}`,
        defaultPath: suggested,
        filters: [{ name: kind, extensions: [kind === 'CSV' ? 'csv' : ext] }],
      });
      return r.canceled ? undefined : r.filePath;
    },
    () => starting,
    async (title) => {
      const r = await dialog.showOpenDialog(window, { title, properties: ['openDirectory'] });
      return r.canceled ? undefined : r.filePaths[0];
    },
    async (title) => {
      const r = await dialog.showOpenDialog(window, { title, properties: ['openFile', 'multiSelections'], filters: [{ name: 'CSV, Parquet, Arrow', extensions: ['csv', 'parquet', 'arrow', 'arrows', 'ipc', 'feather'] }] });
      return r.canceled || r.filePaths.length === 0 ? undefined : r.filePaths;
    },
  );
  for (const method of Object.keys(INVOKE_CHANNELS) as Array<keyof BackendApi>) {
    const channel = INVOKE_CHANNELS[method];
    const handler = handlers[method];
    ipcMain.handle(channel, (event, ...args) => {
      if (!fromApp(event)) throw new TickscopeError('badRequest', `${channel}: refused a call from outside the app`);
      // bounded as a REST body is (SPEC 10) before anything walks it or hands it to a worker
      checkValueBounds(args, { maxDepth: opts.settings.maxJsonDepth + 1, maxElements: opts.settings.maxJsonElements }, channel);
      return handler(...args);
    });
  }

  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate((cmd) => window.webContents.send(MENU_CHANNEL, cmd))));
  window.once('ready-to-show', () => window.show());
  await window.loadFile(rendererIndex);
  return { window, ready };
}
