/**
 * The sandboxed preload: exposes `window.tickscope` (the BackendApi plus menu events) through the
 * context bridge and nothing else of Node or Electron.
 */
import type { BackendApi } from '../engine/contract.js';
import { INVOKE_CHANNELS, MENU_CHANNEL, type MenuCommand } from './ipc-contract.js';

interface PreloadElectron {
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  ipcRenderer: {
    invoke(channel: string, ...args: unknown[]): Promise<never>;
    on(channel: string, listener: (event: unknown, ...args: never[]) => void): void;
  };
}

// require, not import: the electron package is optional, so the layer carries its own types.
const { contextBridge, ipcRenderer } = require('electron') as PreloadElectron;

const api: BackendApi & { onMenu(listener: (cmd: MenuCommand) => void): void } = {
  info: () => ipcRenderer.invoke(INVOKE_CHANNELS.info),
  startup: () => ipcRenderer.invoke(INVOKE_CHANNELS.startup),
  run: (operation, args, queryId) => ipcRenderer.invoke(INVOKE_CHANNELS.run, operation, args, queryId),
  progress: (queryId) => ipcRenderer.invoke(INVOKE_CHANNELS.progress, queryId),
  cancel: (queryId) => ipcRenderer.invoke(INVOKE_CHANNELS.cancel, queryId),
  page: (resultId, offset, limit, form) => ipcRenderer.invoke(INVOKE_CHANNELS.page, resultId, offset, limit, form ?? 'grid'),
  sort: (resultId, sortCols) => ipcRenderer.invoke(INVOKE_CHANNELS.sort, resultId, sortCols),
  chart: (req) => ipcRenderer.invoke(INVOKE_CHANNELS.chart, req),
  identifiers: (assembly, table) => ipcRenderer.invoke(INVOKE_CHANNELS.identifiers, assembly, table),
  exportCsv: (resultId, name, format, exportId) => ipcRenderer.invoke(INVOKE_CHANNELS.exportCsv, resultId, name, format ?? 'csv', exportId),
  table: (resultId) => ipcRenderer.invoke(INVOKE_CHANNELS.table, resultId),
  connections: () => ipcRenderer.invoke(INVOKE_CHANNELS.connections),
  addConnection: (spec) => ipcRenderer.invoke(INVOKE_CHANNELS.addConnection, spec),
  useConnection: (id) => ipcRenderer.invoke(INVOKE_CHANNELS.useConnection, id),
  removeConnection: (id) => ipcRenderer.invoke(INVOKE_CHANNELS.removeConnection, id),
  openDatabase: (spec) => ipcRenderer.invoke(INVOKE_CHANNELS.openDatabase, spec),
  closeDatabase: (name) => ipcRenderer.invoke(INVOKE_CHANNELS.closeDatabase, name),
  pickFolder: (title) => ipcRenderer.invoke(INVOKE_CHANNELS.pickFolder, title),
  pickFiles: (title) => ipcRenderer.invoke(INVOKE_CHANNELS.pickFiles, title),
  importPreview: (req) => ipcRenderer.invoke(INVOKE_CHANNELS.importPreview, req),
  importFiles: (req, queryId) => ipcRenderer.invoke(INVOKE_CHANNELS.importFiles, req, queryId),
  onMenu: (listener) => {
    ipcRenderer.on(MENU_CHANNEL, (_event, cmd: MenuCommand) => listener(cmd));
  },
};

contextBridge.exposeInMainWorld('tickscope', api);
