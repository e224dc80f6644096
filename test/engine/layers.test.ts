/**
 * The floors of engine/ (docs/architecture.md, Floors) as `npm run lint` checks them: dependency-cruiser
 * with the rules of .dependency-cruiser.mjs. On a planted tree it reports an upward import (a value, an
 * `import()` type), an import against a floor's order of folders, a circle of files and a folder on
 * no floor; on engine/ and bench/ it reports nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/db.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const config = join(root, '.dependency-cruiser.mjs');
/** The command `npm run lint` runs (depcruise). */
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
  readonly cycle?: ReadonlyArray<{ readonly name: string }>;
}

/** Runs depcruise with the lint script's config in `cwd` over `paths`. */
const depcruiseIn = (cwd: string, args: readonly string[]) =>
  spawnSync(process.execPath, [depcruise, '--config', config, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });

/**
 * The check of the lint script in `cwd` over `paths`: its exit code as the lint script runs it, and
 * the violations it reports (read from its JSON report).
 */
function check(cwd: string, paths: readonly string[]): { status: number | null; violations: Violation[] } {
  const json = depcruiseIn(cwd, ['--output-type', 'json', ...paths]);
  if (!json.stdout) throw new Error(`depcruise wrote nothing: ${json.stderr}`);
  const out = JSON.parse(json.stdout) as { summary: { violations: Violation[] } };
  return { status: depcruiseIn(cwd, paths).status, violations: out.summary.violations };
}

/** A tree of .ts files under `dir`, written as given. */
function plant(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

describe('the floors of engine/', () => {
  it('reports an upward import, an import() type from above, an import against its floor order, a circle and a folder on no floor', () => {
    const dir = tempDir('tickscope-layers-');
    plant(dir, {
      // core (floor 0) imports ops (floor 3): a value, its specifier .js for a .ts file
      'engine/core/up.ts': "import { b } from '../ops/below.js';\nexport const up = b;\n",
      'engine/ops/below.ts': 'export const b = 1;\n',
      // core names a type of session (floor 5) in an import() type, no import statement
      'engine/core/hooks.ts': "export interface Hooks {\n  collect(): import('../session/held.js').Held[];\n}\n",
      'engine/session/held.ts': 'export interface Held {\n  readonly rows: number;\n}\n',
      // ops and orders share floor 3, orders listed after ops: ops may not import orders
      'engine/ops/sideways.ts': "import { p } from '../orders/peer.js';\nexport const s = p;\n",
      'engine/orders/peer.ts': 'export const p = 2;\n',
      // a circle within one folder (storage), type-only on one side
      'engine/storage/x.ts': "import type { Y } from './y.js';\nexport interface X {\n  y?: Y;\n}\n",
      'engine/storage/y.ts': "import type { X } from './x.js';\nexport interface Y {\n  x?: X;\n}\n",
      // a folder on no floor
      'engine/nowhere/n.ts': "import { b } from '../ops/below.js';\nexport const n = b;\n",
    });
    const { status, violations } = check(dir, ['engine']);
    const found = (rule: string, from: string, to: string): boolean => violations.some((v) => v.rule.name === rule && v.from === from && v.to === to);
    expect(status).not.toBe(0);
    expect(found('floor-core', 'engine/core/up.ts', 'engine/ops/below.ts')).toBe(true);
    expect(found('floor-core', 'engine/core/hooks.ts', 'engine/session/held.ts')).toBe(true);
    expect(found('floor-ops', 'engine/ops/sideways.ts', 'engine/orders/peer.ts')).toBe(true);
    const circles = violations.filter((v) => v.rule.name === 'no-circular');
    expect(circles.map((v) => [v.from, ...(v.cycle ?? []).map((c) => c.name)].sort())).toContainEqual(['engine/storage/x.ts', 'engine/storage/x.ts', 'engine/storage/y.ts'].sort());
    expect(found('on-a-floor', 'engine/nowhere/n.ts', 'engine/ops/below.ts')).toBe(true);
    // and nothing else: the imports down the floors pass
    expect(violations.filter((v) => v.rule.name !== 'no-circular')).toHaveLength(4);
  });

  it('reports nothing in engine/ and bench/', () => {
    const run = depcruiseIn(root, ['engine', 'bench']);
    expect(run.stdout + run.stderr).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  });
});
