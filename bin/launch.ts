/**
 * dist/bin/cli.cjs: starts the `tickscope` command (the cli-main.cjs bundle) with its large bundles
 * compiled through V8's code cache (code-cache.ts). The cache is written at the exit of a run that
 * found none to use.
 */
import { join } from 'node:path';
import { CodeCache } from './code-cache.js';

// this file is bundled as dist/bin/cli.cjs: its neighbours are the command and dist/vendor
const main = join(__dirname, 'cli-main.cjs');
// caches go beside the bundles, or where TICKSCOPE_CODE_CACHE_DIR says (an install it cannot write)
const cache = new CodeCache([main, join(__dirname, '..', 'vendor', 'arrow.cjs')], process.env['TICKSCOPE_CODE_CACHE_DIR'] || undefined);
cache.install();
// written by a command that runs the engine and ends well: a cache holds the code its run compiled,
// and help, a usage error or a small command compile little of it (the cache, once there, stays)
const args = process.argv.slice(2);
const working = ['call', 'serve', 'gateway', 'start', 'import', 'demo', 'migrate'].includes(args[0] ?? '') && !args.includes('--help') && !args.includes('-h');
if (working) process.once('exit', (code) => code === 0 && cache.save());
// a plain require (not an import): the command is a CommonJS file loaded through the .cjs loader above
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(main);
