/**
 * The part of Electron's API the desktop layer uses, as structural types. The electron package is
 * an optional dependency (its runtime download needs internet at install time), so the layer is
 * typed against this and unit-tested with a mock of it.
 */

export interface WebPreferences {
  preload: string;
  contextIsolation: boolean;
  sandbox: boolean;
  nodeIntegration: boolean;
  webSecurity: boolean;
  spellcheck: boolean;
}

export interface BrowserWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  title: string;
  backgroundColor: string;
  show: boolean;
  webPreferences: WebPreferences;
}

export interface WebContentsLike {
  send(channel: string, ...args: unknown[]): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'allow' | 'deny' }): void;
  on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): void;
}

export interface BrowserWindowLike {
  readonly webContents: WebContentsLike;
  loadFile(path: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): void;
  show(): void;
}

export interface MenuItemTemplate {
  label?: string;
  role?: string;
  accelerator?: string;
  type?: 'separator';
  click?: () => void;
  submenu?: MenuItemTemplate[];
}

export interface IpcMainInvokeEventLike {
  readonly senderFrame?: { readonly url: string } | null;
}

export interface ElectronApi {
  app: {
    whenReady(): Promise<void>;
    setName(name: string): void;
    setPath(name: 'userData', path: string): void;
    on(event: 'window-all-closed' | 'will-quit', listener: () => void): void;
    quit(): void;
  };
  BrowserWindow: new (options: BrowserWindowOptions) => BrowserWindowLike;
  ipcMain: {
    handle(channel: string, listener: (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown): void;
  };
  dialog: {
    showSaveDialog(
      window: BrowserWindowLike,
      options: { title: string; defaultPath: string; filters: Array<{ name: string; extensions: string[] }> },
    ): Promise<{ canceled: boolean; filePath?: string }>;
    showOpenDialog(
      window: BrowserWindowLike,
      options: { title: string; properties: Array<'openDirectory' | 'openFile' | 'multiSelections'>; filters?: Array<{ name: string; extensions: string[] }> },
    ): Promise<{ canceled: boolean; filePaths: string[] }>;
    showErrorBox(title: string, content: string): void;
    showMessageBox(options: { type: 'info'; title: string; message: string; detail: string }): Promise<unknown>;
  };
  Menu: {
    buildFromTemplate(template: MenuItemTemplate[]): unknown;
    setApplicationMenu(menu: unknown): void;
  };
  shell: { openExternal(url: string): Promise<void> };
}
