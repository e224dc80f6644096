/** Render helpers whose threads a test holds: to wait until one is online, or to end it. */
import { Worker } from 'node:worker_threads';
import { RenderHelpers } from '../../engine/output/parallel-text.js';

/** `count` render helpers (giving up a silent one after `silentMs`, when given) and their threads. */
export function heldRenderHelpers(count: number, silentMs?: number): { helpers: RenderHelpers; threads: Worker[] } {
  const threads: Worker[] = [];
  const startWorker = (script: string): Worker => {
    const w = new Worker(script);
    threads.push(w);
    return w;
  };
  return { helpers: RenderHelpers.start(count, { startWorker, ...(silentMs === undefined ? {} : { silentMs }) }), threads };
}
