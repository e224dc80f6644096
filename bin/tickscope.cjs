#!/usr/bin/env node
// The `tickscope` command. The TypeScript sources are bundled into dist/ by `npm run build`
// (run automatically by `npm ci` through the prepare script).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const built = join(__dirname, '..', 'dist', 'bin', 'cli.cjs');
if (!existsSync(built)) {
  console.error('tickscope is not built yet: run `npm run build` (npm ci does it for you).');
  process.exit(2);
}
require(built);
