/**
 * The named fixed cases every fuzz run includes, however short: inputs built to hurt (deep JSON,
 * absurd q counts, a 22-byte decompression bomb, a thousand idle sockets, a byte-a-second handshake,
 * a client that never reads its answer). Each states what a hardened gateway does, and each checks
 * that a correct request is still answered within a second while it runs.
 */
import { connect, type Socket } from 'node:net';
import { type GatewayChild } from './gateway-child.js';
import type { World } from './fuzz-world.js';
import { QClient, qErrorText, qMessage } from './q-wire.js';
import { rawHttp } from './raw-http.js';

export interface NamedContext {
  readonly w: World;
  readonly gw: GatewayChild;
  /** The gateway's qHandshakeTimeoutMs and writeStallMs (what the run set, or the defaults). */
  readonly handshakeTimeoutMs: number;
  readonly writeStallMs: number;
  readonly hangMs: number;
  /** A correct small getTicks: its status and ms. */
  probe(): Promise<{ status: number; ms: number }>;
  /** A correct call over q IPC on a new connection: ok and ms (login included). */
  qProbe(): Promise<{ ok: boolean; ms: number; detail: string }>;
}

export interface NamedResult {
  readonly ok: boolean;
  readonly detail: string;
}

export interface NamedCase {
  readonly name: string;
  /** What a hardened gateway does. */
  readonly expect: string;
  run(ctx: NamedContext): Promise<NamedResult>;
}

const MiB = 1024 * 1024;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** {"table":"Trade","filter":[[[...]]]} nested `depth` deep. */
export function deepBody(depth: number): Buffer {
  return Buffer.from(`{"table":"Trade","filter":${'['.repeat(depth)}${']'.repeat(depth)}}`);
}

async function deepJson(ctx: NamedContext, depth: number): Promise<NamedResult> {
  const r = await rawHttp(ctx.w.host, ctx.w.restPort, { method: 'POST', path: '/servicegateway/fsi/getTicks', headers: [['Authorization', `Bearer ${ctx.w.token}`], ['Content-Type', 'application/json']], body: deepBody(depth) }, ctx.hangMs);
  if (r.kind !== 'answer') return { ok: false, detail: r.kind === 'hang' ? `no answer in ${ctx.hangMs} ms` : `connection failed: ${r.error}` };
  let ac = -1;
  let ai = '';
  try {
    const h = (JSON.parse(r.body.toString()) as { header: { ac: number; ai: string } }).header;
    ac = h.ac;
    ai = h.ai;
  } catch {
    ai = r.body.toString().slice(0, 120);
  }
  const ok = r.status === 400 && ac === 57 && /body|filter/.test(ai);
  return { ok, detail: `${r.status} ac ${ac} in ${r.ms.toFixed(0)} ms: ${ai.slice(0, 160)}` };
}

/** Sends one raw q message on a logged-in connection; the answer must come within a second and name the q message. */
async function qAbsurd(ctx: NamedContext, bytes: Buffer, mustSay = /^\d+ q message/): Promise<NamedResult> {
  const before = ctx.gw.memory();
  const c = await QClient.login(ctx.w.ipcPort, ctx.w.clientId, ctx.w.clientSecret);
  const out = await c.send(bytes, true, ctx.hangMs);
  c.close();
  const after = ctx.gw.memory();
  const grew = (after.hwm - before.hwm) / MiB;
  const text = out.kind === 'reply' ? (qErrorText(out.bytes) ?? '(not an error)') : out.kind;
  const q = await ctx.qProbe();
  const answered = out.kind === 'closed' || (out.kind === 'reply' && mustSay.test(text));
  const ok = answered && out.ms < 1000 && !(grew > 64) && q.ok;
  return { ok, detail: `${text.slice(0, 140)} after ${out.ms.toFixed(0)} ms; peak RSS +${grew.toFixed(0)} MiB; a correct q call then: ${q.detail}` };
}

/** Every named case, in the order a run takes them. */
export const NAMED_CASES: readonly NamedCase[] = [
  {
    name: 'json-depth-5000',
    expect: 'a body nested 5,000 deep answers 400 with ac 57 (past maxJsonDepth) naming the body or filter',
    run: (ctx) => deepJson(ctx, 5000),
  },
  {
    name: 'json-depth-100000',
    expect: 'a body nested 100,000 deep answers 400 with ac 57 naming the body or filter (no stack overflow, no 500)',
    run: (ctx) => deepJson(ctx, 100_000),
  },
  {
    name: 'q-bool-vector-200M',
    expect: 'a 30-byte message claiming 200,000,000 booleans answers a q error naming the q message at once, allocating nothing of that size',
    run: (ctx) => {
      const body = Buffer.alloc(22, 1);
      body[0] = 1;
      body[1] = 0;
      body.writeInt32LE(200_000_000, 2);
      return qAbsurd(ctx, qMessage(1, body));
    },
  },
  {
    name: 'q-list-2^31',
    expect: 'a general list claiming 2^31 items answers a q error naming the q message at once',
    run: (ctx) => {
      const body = Buffer.alloc(22, 0);
      body.writeUInt32LE(2 ** 31, 2);
      return qAbsurd(ctx, qMessage(1, body));
    },
  },
  {
    name: 'q-compressed-22-bytes',
    expect: 'a 22-byte compressed message claiming 200,000,014 unpacked bytes (past maxQMessageBytes), its data ending inside a back reference, answers a q error or a closed connection at once without allocating the claim',
    run: (ctx) => {
      const m = Buffer.from([1, 1, 1, 0, 22, 0, 0, 0, 0, 0, 0, 0, 0x00, 0, 0, 2, 0, 0, 0, 0xf5, 0x61, 0x01]);
      m.writeInt32LE(200_000_014, 8);
      // the refusal is of the claimed size, before any unpacking (the claim is past maxQMessageBytes)
      return qAbsurd(ctx, m, /^\d+ q message.*(200000014|at most|maxQMessageBytes)/s);
    },
  },
  {
    name: 'idle-sockets-1000',
    expect: 'with 1,000 q sockets open and silent, correct REST and q calls are answered within 1 s; the gateway closes the silent sockets within qHandshakeTimeoutMs (+3 s)',
    async run(ctx) {
      const sockets: Socket[] = [];
      let closed = 0;
      const opened = await Promise.allSettled(
        Array.from({ length: 1000 }, () =>
          new Promise<void>((resolve, reject) => {
            const s = connect(ctx.w.ipcPort, ctx.w.host);
            sockets.push(s);
            s.on('error', () => undefined);
            s.once('close', () => closed++);
            s.once('connect', () => resolve());
            s.once('error', reject);
          }),
        ),
      );
      const failedToOpen = opened.filter((o) => o.status === 'rejected').length;
      const rest = await ctx.probe();
      const q = await ctx.qProbe();
      const deadline = performance.now() + ctx.handshakeTimeoutMs + 3000;
      while (closed < sockets.length && performance.now() < deadline) await sleep(200);
      const left = sockets.length - closed;
      for (const s of sockets) s.destroy();
      const ok = failedToOpen === 0 && rest.status === 200 && rest.ms < 1000 && q.ok && left === 0;
      return { ok, detail: `${sockets.length - failedToOpen} opened; meanwhile getTicks ${rest.status} in ${rest.ms.toFixed(0)} ms, q call ${q.detail}; ${left} still open ${((ctx.handshakeTimeoutMs + 3000) / 1000).toFixed(0)} s later` };
    },
  },
  {
    name: 'slow-handshake',
    expect: 'a handshake written one byte a second is cut when qHandshakeTimeoutMs is up (+2 s), while correct requests are answered',
    async run(ctx) {
      const c = await QClient.open(ctx.w.ipcPort, ctx.w.host);
      const bytes = Buffer.from(`${ctx.w.clientId}:${ctx.w.clientSecret}\u0003\u0000`);
      const t0 = performance.now();
      const limit = ctx.handshakeTimeoutMs + 2000;
      let sent = 0;
      let worst = 0;
      while (!c.closed && sent < bytes.length && performance.now() - t0 < limit + 1000) {
        c.socket.write(bytes.subarray(sent, sent + 1));
        sent++;
        const p = await ctx.probe();
        worst = Math.max(worst, p.status === 200 ? p.ms : Infinity);
        await sleep(Math.max(0, 1000 - p.ms));
      }
      const cutAfter = performance.now() - t0;
      const cut = c.closed;
      c.close();
      const ok = cut && cutAfter <= limit + 1000 && worst < 1000;
      return { ok, detail: `${cut ? `cut after ${(cutAfter / 1000).toFixed(1)} s` : `still open after ${(cutAfter / 1000).toFixed(1)} s`} (${sent} of ${bytes.length} bytes sent); slowest correct getTicks meanwhile ${worst.toFixed(0)} ms` };
    },
  },
  {
    name: 'unread-large-answer',
    expect: 'a client that asks a one-day getTicks and reads nothing is cut after writeStallMs (+5 s) and its worker freed; correct requests are answered within 1 s meanwhile',
    async run(ctx) {
      const s = connect(ctx.w.restPort, ctx.w.host);
      s.on('error', () => undefined);
      await new Promise<void>((resolve) => s.once('connect', () => resolve()));
      const body = JSON.stringify({ table: 'Trade', startTS: ctx.w.day, endTS: ctx.w.nextDay });
      let head = Buffer.alloc(0);
      let gotHead = false;
      const firstBytes = new Promise<void>((resolve) => {
        const onData = (c: Buffer): void => {
          head = Buffer.concat([head, c]);
          if (head.includes('\r\n\r\n')) {
            gotHead = true;
            s.off('data', onData);
            // never read again: the answer backs up into the gateway
            s.pause();
            resolve();
          }
        };
        s.on('data', onData);
        setTimeout(resolve, ctx.hangMs);
      });
      s.write(`POST /servicegateway/fsi/getTicks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.w.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      await firstBytes;
      const status = /^HTTP\/1\.1 (\d+)/.exec(head.toString('latin1'))?.[1] ?? 'none';
      let worst = 0;
      const wait = ctx.writeStallMs + 5000;
      const t0 = performance.now();
      while (performance.now() - t0 < wait) {
        const p = await ctx.probe();
        worst = Math.max(worst, p.status === 200 ? p.ms : Infinity);
        await sleep(500);
      }
      // now read what is left: a cut answer ends without the last chunk
      let rest = Buffer.alloc(0);
      const ended = await new Promise<boolean>((resolve) => {
        s.on('data', (c: Buffer) => {
          rest = Buffer.concat([rest.subarray(-64), c]).subarray(-128);
          // the whole answer after all (keep-alive: the socket stays open)
          if (rest.includes('\r\n0\r\n\r\n')) resolve(false);
        });
        s.once('close', () => resolve(true));
        s.resume();
        setTimeout(() => resolve(false), 15_000);
      });
      s.destroy();
      const complete = rest.includes('\r\n0\r\n\r\n');
      const ok = gotHead && status === '200' && !complete && worst < 1000;
      return { ok, detail: `answer ${status}; ${complete ? `not cut: the whole answer was still there after ${(wait / 1000).toFixed(0)} s` : ended ? 'cut (the answer ended short)' : 'unfinished'}; slowest correct getTicks meanwhile ${worst.toFixed(0)} ms` };
    },
  },
];

/** The named cases that wait (idle sockets, slow handshake, unread answer): a run takes them together. */
export const WAITING_CASES: ReadonlySet<string> = new Set(['idle-sockets-1000', 'slow-handshake', 'unread-large-answer']);
