/** Worker thread: creates the demo database on first launch, off the Electron main thread. */
import { parentPort } from 'node:worker_threads';
import { ensureDemoDatabase } from '../engine/service/user-data.js';

try {
  parentPort?.postMessage({
    dir: ensureDemoDatabase((msg) => {
      console.log(msg);
      parentPort?.postMessage({ progress: msg });
    }),
  });
} catch (e) {
  parentPort?.postMessage({ error: (e as Error).message });
}
