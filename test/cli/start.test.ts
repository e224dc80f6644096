/** `tickscope start` (npm start): without an Electron runtime it says so and serves the app. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findElectron } from '../../bin/start.js';
import { csv, makeDb } from '../helpers/db.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
const electron = findElectron();

describe('tickscope start', () => {
  it.skipIf('path' in electron)('says plainly that Electron is unavailable and serves the same app to the browser', async () => {
    const db = makeDb({ Trade: csv(['eventTimestamp', 'instrumentID', 'price'], [['2024.03.06D14:30', 'AAPL', '1']]) });
    const proc = spawn(process.execPath, [CLI, 'start', '--db', db.dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const out = await new Promise<string>((resolve, reject) => {
        let text = '';
        proc.stdout.on('data', (c: Buffer) => {
          text += c.toString();
          if (/Open http:\/\/\S+/.test(text)) resolve(text);
        });
        proc.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      const [sentence] = out.split('\n');
      expect(sentence).toMatch(/^The Electron runtime is not available here \(.+\), so Tickscope is serving the same app to your browser instead\.$/);
      const url = /Open (http:\/\/\S+) in your browser/.exec(out)![1]!;
      const page = await (await fetch(url)).text();
      expect(page).toContain('<meta name="tickscope-token"');
      expect(page).toContain('<div id="root"></div>');
    } finally {
      proc.kill();
    }
  });
});
