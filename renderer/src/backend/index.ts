/** Picks the backend: Electron's preload bridge when present, else HTTP to `tickscope serve`. */
import type { BackendApi } from '../../../engine/contract';
import { httpBackend } from './http';

export type MenuCommand = 'run' | 'export';

interface ElectronBridge extends BackendApi {
  onMenu(listener: (cmd: MenuCommand) => void): void;
}

declare global {
  interface Window {
    tickscope?: ElectronBridge;
  }
}

let chosen: BackendApi | undefined;

/** The backend: Electron's bridge when the preload exposed it, else HTTP (chosen on first use). */
export function backend(): BackendApi {
  chosen ??= window.tickscope ?? httpBackend();
  return chosen;
}

/** Subscribes to the desktop menu's commands (no-op in the browser). */
export function onMenuCommand(listener: (cmd: MenuCommand) => void): void {
  window.tickscope?.onMenu(listener);
}
