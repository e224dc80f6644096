/** Process settings (SPEC 10): defaults, tickscope.json, environment, flags, each validated. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envName, loadSettings } from '../../../engine/executor/settings.js';
import { tempDir } from '../../helpers/db.js';

describe('process settings', () => {
  it('take tickscope.json, then TICKSCOPE_<NAME> variables, then flags', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tickscope.json'), JSON.stringify({ workers: 3, maxQueuedQueries: 10, queryTimeoutMs: 5000 }));
    const s = loadSettings({ userDataDir: dir, env: { TICKSCOPE_MAX_QUEUED_QUERIES: '20', TICKSCOPE_CACHE_MB: '64' }, flags: { queryTimeoutMs: '100' } });
    expect(s).toMatchObject({ workers: 3, maxRunningQueries: 3, maxQueuedQueries: 20, queryTimeoutMs: 100, cacheBytes: 64 * 1024 * 1024 });
    expect(envName('maxRunningQueries')).toBe('TICKSCOPE_MAX_RUNNING_QUERIES');
    expect(loadSettings({ env: {} }).maxQueuedQueries).toBe(256);
  });

  it('name the setting, its source, the value and what was expected', () => {
    const dir = tempDir();
    const bad = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    expect(bad(() => loadSettings({ env: { TICKSCOPE_WORKERS: 'two' } }))).toBe('workers (TICKSCOPE_WORKERS): "two" is not valid; expected an integer >= 1 (worker threads that run queries)');
    expect(bad(() => loadSettings({ env: {}, flags: { workers: 2, maxRunningQueries: 3 } }))).toBe('maxRunningQueries: 3 is more than workers (2); expected at most 2');
    writeFileSync(join(dir, 'x.json'), JSON.stringify({ threads: 2 }));
    expect(bad(() => loadSettings({ configFile: join(dir, 'x.json'), env: {} }))).toMatch(/x\.json: threads is not a setting; expected one of workers, maxRunningQueries/);
    expect(bad(() => loadSettings({ configFile: join(dir, 'missing.json'), env: {} }))).toMatch(/missing\.json: no such file/);
  });
});
