#!/usr/bin/env node
// The `tickscope` command. The TypeScript sources are bundled into dist/ by `npm run build`
// (run automatically by `npm ci` through the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/bin/cli.js', import.meta.url));
if (!existsSync(built)) {
  console.error('tickscope is not built yet: run `npm run build` (npm ci does it for you).');
  process.exit(2);
}
await import(built);
