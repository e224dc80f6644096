/**
 * The one list of IPC channels between renderer and main (as electron/fiddle keeps its IpcEvents):
 * each BackendApi method has a channel; main registers a handler for every entry, the preload
 * exposes every entry.
 */
import type { BackendApi } from '../engine/contract.js';

export const INVOKE_CHANNELS = {
  info: 'tickscope:info',
  startup: 'tickscope:startup',
  run: 'tickscope:run',
  progress: 'tickscope:progress',
  cancel: 'tickscope:cancel',
  page: 'tickscope:page',
  sort: 'tickscope:sort',
  chart: 'tickscope:chart',
  identifiers: 'tickscope:identifiers',
  exportCsv: 'tickscope:export-csv',
  table: 'tickscope:table',
  connections: 'tickscope:connections',
  addConnection: 'tickscope:add-connection',
  useConnection: 'tickscope:use-connection',
  removeConnection: 'tickscope:remove-connection',
  openDatabase: 'tickscope:open-database',
  closeDatabase: 'tickscope:close-database',
  pickFolder: 'tickscope:pick-folder',
  pickFiles: 'tickscope:pick-files',
  importPreview: 'tickscope:import-preview',
  importFiles: 'tickscope:import-files',
} as const satisfies Record<keyof BackendApi, string>;

/** Main -> renderer: a menu command ("run", "export"). */
export const MENU_CHANNEL = 'tickscope:menu';

export type MenuCommand = 'run' | 'export';
