/**
 * Where the app keeps its own data: the same folder Electron's app.getPath('userData') gives for an
 * app named Tickscope, so the desktop app and the browser fallback share the demo database.
 * TICKSCOPE_HOME overrides it (tests, portable installs).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { generateDemo } from '../demo/generate.js';
import { STORAGE_FORMAT } from '../storage/format.js';
import { migrateDatabase, storageFormatOf } from '../storage/migrate.js';

/** The user data folder of Tickscope on this platform. */
export function userDataDir(): string {
  const override = process.env['TICKSCOPE_HOME'];
  if (override) return override;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Tickscope');
  if (process.platform === 'win32') return join(process.env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), 'Tickscope');
  return join(process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), 'Tickscope');
}

/** The demo database folder, created (with default demo data) on first use, migrated when older. */
export function ensureDemoDatabase(progress: (msg: string) => void = () => {}): string {
  const dir = join(userDataDir(), 'demo');
  if (!existsSync(join(dir, 'schema.json'))) {
    progress(`Creating the demo database in ${dir} (first launch only)...`);
    generateDemo(dir, { progress });
  } else if (storageFormatOf(dir) !== STORAGE_FORMAT) {
    progress(`The demo database in ${dir} was written by an older release; converting it to storage format ${STORAGE_FORMAT} (once)...`);
    migrateDatabase(dir, progress);
  }
  return dir;
}
