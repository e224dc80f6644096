/** Electron main entry: parses --db, then hands the real electron module to startDesktop. */
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { loadSettings } from '../engine/executor/settings.js';
import { userDataDir } from '../engine/service/user-data.js';
import type { ElectronApi } from './electron-api.js';
import { startDesktop } from './desktop.js';

const electron = require('electron') as ElectronApi;
const here = __dirname;
const { values } = parseArgs({ args: process.argv.slice(2), options: { db: { type: 'string', multiple: true }, config: { type: 'string' } }, strict: false });

/** Generates the demo database in a worker so the window stays responsive on first launch; its progress is relayed. */
function ensureDemoInWorker(progress: (msg: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(here, 'demo-worker.cjs'));
    worker.on('message', (m: { dir?: string; error?: string; progress?: string }) => {
      if (m.progress !== undefined) progress(m.progress);
      else if (m.dir) resolve(m.dir);
      else reject(new Error(m.error));
    });
    worker.once('error', reject);
  });
}

startDesktop(electron, {
  dbs: (values['db'] as string[] | undefined) ?? [],
  electronDir: here,
  rendererDir: join(dirname(here), 'renderer'),
  userDataDir: userDataDir(),
  ensureDemo: ensureDemoInWorker,
  settings: loadSettings({ configFile: values['config'] as string | undefined, userDataDir: userDataDir() }),
}).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

