/**
 * Where a built worker script is: beside the running bundle (dist/bin), one folder over
 * (dist/electron, dist/bench), or in dist/bin seen from the sources (tests run them through Vite).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TickscopeError } from '../core/errors.js';

export function builtScript(file: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const rel of [file, `../bin/${file}`, `../../dist/bin/${file}`]) {
    const path = join(here, rel);
    if (existsSync(path)) return path;
  }
  throw new TickscopeError('internal', `a worker script is not built (no dist/bin/${file}); run npm run build`);
}
