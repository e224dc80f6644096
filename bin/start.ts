/**
 * `tickscope start` (npm start): the Electron app when its runtime is installed; otherwise one plain
 * sentence saying so, and the same app and engine served to a local browser.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ProcessSettings } from '../engine/executor/settings.js';
import { serve } from '../engine/server/serve.js';
import { QueryService } from '../engine/service/query-service.js';
import { startEmbeddedGateway } from '../engine/gateway/embedded.js';
import { ensureDemoDatabase, userDataDir } from '../engine/service/user-data.js';
import { REMEMBERED_FILE } from '../engine/service/databases.js';
import type { MountSpec } from '../engine/storage/mount.js';
import { join } from 'node:path';

/** The Electron binary path, or why there is none. */
export function findElectron(): { path: string } | { missing: string } {
  try {
    const require = createRequire(import.meta.url);
    const path: unknown = require('electron');
    return typeof path === 'string' ? { path } : { missing: 'the electron package did not give a binary path' };
  } catch (e) {
    const msg = (e as Error).message;
    return { missing: /Cannot find module/.test(msg) ? 'the electron package is not installed' : msg.split('\n')[0]! };
  }
}

export async function startApp(opts: { dbs: MountSpec[]; port: number; settings: ProcessSettings; config?: string }): Promise<number> {
  const electron = findElectron();
  if ('path' in electron) {
    const main = fileURLToPath(new URL('../electron/main.cjs', import.meta.url));
    const args = [main, ...opts.dbs.flatMap((d) => ['--db', d.dir, ...(d.kdbSettings ? ['--kdb-settings', d.kdbSettings] : [])]), ...(opts.config ? ['--config', opts.config] : [])];
    const child = spawn(electron.path, args, { stdio: 'inherit' });
    return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
  }
  console.log(
    `The Electron runtime is not available here (${electron.missing}; it is downloaded at install time and needs internet access), so Tickscope is serving the same app to your browser instead.`,
  );
  const dbs = opts.dbs.length > 0 ? opts.dbs : [ensureDemoDatabase((m) => console.log(m))];
  // the databases opened from the app last time come back after these
  const service = await QueryService.start(dbs, opts.settings, 'browser', { remember: join(userDataDir(), REMEMBERED_FILE) });
  const server = await serve(service, { port: opts.port, host: '127.0.0.1' });
  console.log(`Open ${server.url} in your browser (Ctrl+C to stop).`);
  const gateway = await startEmbeddedGateway(service, opts.settings, userDataDir());
  if (gateway) console.log(gateway.summary);
  await server.closed;
  await gateway?.close();
  await service.close();
  return 0;
}
