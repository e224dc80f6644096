/**
 * One fuzz run, shared by `npm run fuzz` and the fuzz test: a demo database, a gateway child, the
 * seeded REST and q IPC cases (a correct getTicks alongside every N of them, timed), then the named
 * fixed cases, then a correct read and a correct write. Judges every answer by one oracle and returns
 * what it saw; printing and exit codes are the caller's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemo } from '../engine/demo/generate.js';
import { Clients } from '../engine/gateway/clients.js';
import { type GatewayChild, type GcReading, startGatewayChild } from './gateway-child.js';
import { NAMED_CASES, type NamedContext, WAITING_CASES } from './fuzz-named.js';
import { qCase, type QCase } from './fuzz-q.js';
import { restCase, type RestCase } from './fuzz-rest.js';
import { callJson, discoverWorld } from './fuzz-world.js';
import { encodeQ, QClient, qErrorText, qMessage } from './q-wire.js';
import { rawHttp, type RawResponse } from './raw-http.js';

export interface FuzzOptions {
  readonly seed: number;
  readonly rest: number;
  readonly q: number;
  /** Keep generating until this many minutes have passed (counts then are minimums). */
  readonly minutes?: number;
  /** Short run: the gateway gets short handshake and write-stall timeouts so the waiting cases end soon. */
  readonly short: boolean;
  /** No answer within this many ms is a hang (30 s; the test uses less). */
  readonly hangMs: number;
  /** A correct getTicks goes alongside every this many REST cases. */
  readonly probeEvery: number;
  /** Named cases to run (default all). */
  readonly named?: readonly string[];
  /** Trades per day of the demo database. */
  readonly tradesPerDay?: number;
  readonly progress?: (line: string) => void;
}

export interface Finding {
  readonly id: string;
  readonly what: string;
  readonly detail: string;
}

export interface FuzzReport {
  readonly seed: number;
  readonly restSent: number;
  readonly qSent: number;
  readonly statuses: ReadonlyMap<string, number>;
  readonly qOutcomes: ReadonlyMap<string, number>;
  /** How reaching the executor was counted: the access log's exec=1, or the fallback. */
  readonly reachedMethod: string;
  readonly restReached: number;
  readonly qReached: number;
  readonly crash: string | null;
  readonly hangs: readonly Finding[];
  readonly unplanned5xx: readonly Finding[];
  /** Error answers whose message names neither an argument nor the part at fault. */
  readonly unnamed: readonly Finding[];
  /** Connections closed without an HTTP answer. */
  readonly dropped: readonly Finding[];
  /** Requests Node's HTTP parser refused (400 without a body of the gateway's): reported, not judged. */
  readonly parser: readonly Finding[];
  readonly probes: { readonly count: number; readonly slowestMs: number; readonly slowestAt: string; readonly failed: number };
  readonly memory: { readonly startRss: number; readonly maxRss: number; readonly endRss: number; readonly hwm: number };
  readonly heap: GcReading | null;
  readonly named: ReadonlyArray<{ readonly name: string; readonly expect: string; readonly ok: boolean; readonly detail: string; readonly ms: number }>;
  /** The correct read and write after everything. */
  readonly after: { readonly getTicks: number; readonly generate: number; readonly detail: string };
  readonly seconds: number;
}

/** Statuses a 5xx may have only with these ac (SPEC 7 and 10). */
const PLANNED_5XX: Readonly<Record<number, readonly number[]>> = { 503: [43, 61, 62, 63], 504: [41], 507: [60] };
/** Application codes of errors found by the executor's argument checks (the fallback for exec=1). */
const isArgumentAc = (ac: number): boolean => (ac >= 2 && ac <= 23) || ac === 42;
const DAY = '2024.03.06';
/** timeout, busy, rate limited: conditions of the server and the clock, named by what they are, not by an argument. */
const SERVER_CONDITIONS: readonly number[] = [41, 43, 56];

/** Runs the fuzzer against a fresh gateway child and returns what it found. */
export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const t0 = performance.now();
  const log = o.progress ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'tickscope-fuzz-'));
  try {
    generateDemo(join(dir, 'db'), { seed: 9, days: 1, instruments: 3, tradesPerDay: o.tradesPerDay ?? 50_000, startDate: DAY.replace(/\./g, '-') });
    const clients = Clients.load(join(dir, 'clients.json'));
    const full = { id: 'fuzz', secret: clients.add('fuzz', ['fsi.read', 'fsi.generate']) };
    const read = { id: 'reader', secret: clients.add('reader', ['fsi.read']) };
    const handshakeTimeoutMs = o.short ? 2000 : 10_000;
    const writeStallMs = o.short ? 2000 : 30_000;
    let logLines = 0;
    let execLines = 0;
    const children: GatewayChild[] = [];
    const start = async (): Promise<GatewayChild> => {
      const child = await startGatewayChild({
        db: join(dir, 'db'),
        clientsFile: join(dir, 'clients.json'),
        // the fuzzer holds one token for the whole run (the load script is what renews tokens)
        tokenTtlSeconds: 24 * 3600,
        exposeGc: true,
        env: {
          TICKSCOPE_WORKERS: '2',
          TICKSCOPE_TEST_HOOKS: '1',
          // a legal but enormous query (getStats racked by a nanosecond column: tens of millions of
          // rows, within the default maxResultRows) answers 504 inside the hang limit instead of
          // running the gateway's default 300 s: the fuzzer judges answers, not the data's size
          TICKSCOPE_QUERY_TIMEOUT_MS: '20000',
          ...(o.short ? { TICKSCOPE_Q_HANDSHAKE_TIMEOUT_MS: String(handshakeTimeoutMs), TICKSCOPE_WRITE_STALL_MS: String(writeStallMs) } : {}),
        },
        onLine: (line) => {
          if (!/ POST \S+ status=/.test(line)) return;
          logLines++;
          if (/ exec=1\b/.test(line)) execLines++;
        },
      });
      children.push(child);
      return child;
    };
    try {
      return await fuzzAgainst(o, start, full, read, { handshakeTimeoutMs, writeStallMs, logLines: () => logLines, execLines: () => execLines, t0, log });
    } finally {
      for (const c of children) await c.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Run {
  readonly handshakeTimeoutMs: number;
  readonly writeStallMs: number;
  logLines(): number;
  execLines(): number;
  readonly t0: number;
  log(line: string): void;
}

async function fuzzAgainst(o: FuzzOptions, start: () => Promise<GatewayChild>, full: { id: string; secret: string }, read: { id: string; secret: string }, run: Run): Promise<FuzzReport> {
  let gw = await start();
  let w = await discoverWorld(gw, full, read, DAY);
  const statuses = new Map<string, number>();
  const qOutcomes = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  const hangs: Finding[] = [];
  const unplanned: Finding[] = [];
  const unnamed: Finding[] = [];
  const dropped: Finding[] = [];
  const parser: Finding[] = [];
  let restReachedFallback = 0;
  let qReached = 0;
  let crash: string | null = null;
  // the cases on the wire when the gateway died: one of them killed it
  const inFlight = new Map<string, string>();
  const recent: string[] = [];
  const remember = (id: string, what: string): void => {
    inFlight.set(id, what);
    recent.push(`${id} ${what}`);
    if (recent.length > 12) recent.shift();
  };
  const watch = (child: GatewayChild): void =>
    void child.exited.then((e) => {
      if (child !== gw) return;
      crash = `the gateway exited (${e.signal ?? `code ${e.code}`}) with these cases in flight: ${[...inFlight].map(([id, what]) => `${id} ${what}`).join('; ')}\n${child.stderrTail().slice(-1500)}`;
    });
  watch(gw);
  const mem = { startRss: gw.memory().rss, maxRss: 0, endRss: 0, hwm: 0 };
  const sampler = setInterval(() => (mem.maxRss = Math.max(mem.maxRss, gw.memory().rss || 0)), 250);
  const probes = { count: 0, slowestMs: 0, slowestAt: '', failed: 0 };
  const probeBody = { table: 'Trade', startTS: `${w.day}D14:30`, endTS: `${w.day}D14:31`, idList: [w.instruments[0]!], columns: ['price'] };
  const probe = async (at: string): Promise<{ status: number; ms: number }> => {
    const s = performance.now();
    let status = 0;
    try {
      status = (await callJson(w.base, w.token, '/servicegateway/fsi/getTicks', probeBody, o.hangMs)).status;
    } catch {
      status = 0;
    }
    const ms = performance.now() - s;
    probes.count++;
    if (status !== 200) probes.failed++;
    if (ms > probes.slowestMs) Object.assign(probes, { slowestMs: ms, slowestAt: at });
    if (status !== 200 && !crash && !(await healthy())) {
      // wedged: alive but answering nothing; the fuzz cannot go on against it
      crash = `the gateway stopped answering correct requests (alive, ${gw.alive() ? 'wedged' : 'exited'}) after these cases: ${recent.join('; ')}`;
    }
    return { status, ms };
  };
  /** A correct request answered within the hang limit. */
  const healthy = async (): Promise<boolean> => {
    try {
      return (await callJson(w.base, w.token, '/servicegateway/fsi/getTicks', probeBody, o.hangMs)).status === 200;
    } catch {
      return false;
    }
  };

  const judgeRest = (c: RestCase, r: RawResponse): void => {
    const at = { id: c.id, what: c.what };
    if (r.kind === 'hang') return void hangs.push({ ...at, detail: `no answer in ${o.hangMs} ms (${r.received} bytes)` });
    if (r.kind === 'failed') {
      bump(statuses, 'dropped');
      return void dropped.push({ ...at, detail: r.error });
    }
    bump(statuses, String(r.status));
    let message = '';
    let ac = -1;
    try {
      const j = JSON.parse(r.body.toString()) as { header?: { ac: number; ai: string }; error?: string; error_description?: string };
      message = j.header?.ai ?? j.error_description ?? j.error ?? '';
      ac = j.header?.ac ?? -1;
    } catch {
      message = '';
    }
    if (r.status === 200 || (r.status === 400 && isArgumentAc(ac))) restReachedFallback++;
    if (r.status >= 500 && !(PLANNED_5XX[r.status] ?? []).includes(ac)) unplanned.push({ ...at, detail: `${r.status} ac ${ac}: ${message.slice(0, 200) || r.body.toString().slice(0, 200)}` });
    if (r.status === 400 && ac === -1 && !r.headers['content-type']) {
      // Node's HTTP parser refused the request line or a header before the gateway saw it
      return void parser.push({ ...at, detail: `${r.status} ${r.body.toString().slice(0, 60)}` });
    }
    if (r.status !== 200 && c.req.method !== 'HEAD' && !SERVER_CONDITIONS.includes(ac) && !c.names.test(message)) unnamed.push({ ...at, detail: `${r.status} ac ${ac}: ${message.slice(0, 200) || `(no message) ${r.body.toString().slice(0, 100)}`}` });
  };

  const judgeQ = (c: QCase, r: { kind: string; bytes?: Buffer; ms: number }): void => {
    const at = { id: c.id, what: c.what };
    if (c.incomplete) return void bump(qOutcomes, r.kind === 'closed' ? 'closed' : 'waited (incomplete)');
    if (r.kind === 'silent') {
      if (c.expectReply) hangs.push({ ...at, detail: `no q answer in ${o.hangMs} ms` });
      return void bump(qOutcomes, c.expectReply ? 'hang' : 'no answer due');
    }
    if (r.kind === 'closed') return void bump(qOutcomes, 'closed');
    if (c.kind === 'handshake') return void bump(qOutcomes, 'handshake answered');
    if (!c.expectReply) return void bump(qOutcomes, 'sent');
    const text = qErrorText(r.bytes!);
    if (text === null) {
      qReached++;
      return void bump(qOutcomes, 'answer');
    }
    const ac = Number(/^(\d+) /.exec(text)?.[1] ?? -1);
    bump(qOutcomes, `error ac ${ac}`);
    if (isArgumentAc(ac)) qReached++;
    if (ac === 99 || ac < 0) unplanned.push({ ...at, detail: `q error ${text.slice(0, 200)}` });
    if (!SERVER_CONDITIONS.includes(ac) && !c.names.test(text)) unnamed.push({ ...at, detail: `q error ${text.slice(0, 200)}` });
  };

  const until = o.minutes ? run.t0 + o.minutes * 60_000 : 0;
  const more = (i: number, n: number): boolean => crash === null && (i < n || performance.now() < until);
  let nextRest = 0;
  let restSent = 0;
  let nextQ = 0;
  const restWorker = async (): Promise<void> => {
    for (let i = nextRest++; more(i, o.rest); i = nextRest++) {
      const c = restCase(w, o.seed, i);
      remember(c.id, c.what);
      const r = await rawHttp(w.host, w.restPort, c.req, o.hangMs);
      inFlight.delete(c.id);
      restSent++;
      if (crash) break;
      judgeRest(c, r);
      if (i % o.probeEvery === o.probeEvery - 1) await probe(c.id);
      if (i % 500 === 499) run.log(`  rest ${i + 1} ...`);
    }
  };
  const qWorker = async (): Promise<void> => {
    let conn: QClient | null = null;
    for (let i = nextQ++; more(i, o.q); i = nextQ++) {
      const c = qCase(w, o.seed, i);
      remember(c.id, c.what);
      if (c.kind === 'handshake') {
        const h = await QClient.open(w.ipcPort, w.host).catch(() => null);
        if (!h) {
          if (crash) break;
          hangs.push({ id: c.id, what: c.what, detail: 'the q port refused the connection' });
          continue;
        }
        const r = await h.handshake(c.bytes, c.incomplete ? 300 : o.hangMs);
        h.close();
        inFlight.delete(c.id);
        judgeQ(c, r);
        continue;
      }
      conn ??= await QClient.login(w.ipcPort, w.clientId, w.clientSecret).catch(() => null);
      if (!conn) {
        if (crash) break;
        hangs.push({ id: c.id, what: 'q login', detail: 'a correct handshake was not answered' });
        continue;
      }
      let r;
      if (c.slowMs) {
        for (let k = 0; k < c.bytes.length; k += 7) {
          conn.socket.write(c.bytes.subarray(k, k + 7));
          await new Promise((res) => setTimeout(res, c.slowMs));
        }
        r = await conn.reply(o.hangMs);
      } else r = await conn.send(c.bytes, c.expectReply || Boolean(c.incomplete), c.incomplete ? 300 : o.hangMs);
      if (crash) break;
      inFlight.delete(c.id);
      judgeQ(c, r);
      // a connection left mid-message, closed, or after an answer nobody waits for is not reused
      if (r.kind !== 'reply' || c.incomplete || !c.expectReply) {
        conn.close();
        conn = null;
      }
    }
    conn?.close();
  };
  run.log(`fuzzing: ${o.rest} REST and ${o.q} q cases (seed ${o.seed})${o.minutes ? ` for at least ${o.minutes} min` : ''}`);
  await Promise.all([restWorker(), restWorker(), restWorker(), qWorker(), qWorker()]);
  // a crash in the mix still leaves the named cases to judge: on a new gateway
  const mixCrash = crash;
  if (mixCrash) {
    run.log('  the gateway crashed or wedged: a new one for the named cases');
    await gw.stop();
    gw = await start();
    crash = null;
    watch(gw);
    w = await discoverWorld(gw, full, read, DAY);
  }

  const named: Array<FuzzReport['named'][number]> = [];
  const ctx: { -readonly [K in keyof NamedContext]: NamedContext[K] } = {
    w,
    gw,
    handshakeTimeoutMs: run.handshakeTimeoutMs,
    writeStallMs: run.writeStallMs,
    hangMs: o.hangMs,
    probe: () => probe('a named case'),
    qProbe: async () => {
      const s = performance.now();
      try {
        const c = await QClient.login(w.ipcPort, w.clientId, w.clientSecret);
        const body = encodeQ({ t: 'list', v: [{ t: 'sym', v: '.fsi.getTicks' }, { t: 'dict', keys: ['table', 'idList'], v: [{ t: 'sym', v: 'Instrument' }, { t: 'syms', v: [w.instruments[0]!] }] }] });
        const r = await c.send(qMessage(1, body), true, o.hangMs);
        c.close();
        const ms = performance.now() - s;
        const err = r.kind === 'reply' ? qErrorText(r.bytes) : r.kind;
        return { ok: err === null && ms < 1000, ms, detail: `${err === null ? 'answered' : err} in ${ms.toFixed(0)} ms` };
      } catch (e) {
        return { ok: false, ms: performance.now() - s, detail: (e as Error).message };
      }
    },
  };
  const chosen = NAMED_CASES.filter((c) => !o.named || o.named.includes(c.name));
  const runNamed = async (c: (typeof NAMED_CASES)[number]): Promise<void> => {
    run.log(`  named case ${c.name} ...`);
    const s = performance.now();
    let result;
    try {
      result = await c.run(ctx);
    } catch (e) {
      result = { ok: false, detail: `threw: ${(e as Error).message}` };
    }
    if (crash) result = { ok: false, detail: `the gateway crashed: ${result.detail}` };
    else if (!(await healthy())) result = { ok: false, detail: `${result.detail}; AFTERWARDS the gateway answered no correct request within ${o.hangMs} ms (wedged)` };
    named.push({ name: c.name, expect: c.expect, ...result, ms: performance.now() - s });
  };
  /** A new gateway when the last one crashed or wedged, so one case's damage is not blamed on the next. */
  const recover = async (lastOk: boolean): Promise<void> => {
    // a failed case may have left damage a health check does not see (one worker of two lost)
    if (lastOk && !crash && (await healthy())) return;
    run.log('  a new gateway for the next cases');
    await gw.stop();
    gw = await start();
    crash = null;
    watch(gw);
    w = await discoverWorld(gw, full, read, DAY);
    Object.assign(ctx, { w, gw });
  };
  for (const c of chosen.filter((x) => !WAITING_CASES.has(x.name))) {
    await runNamed(c);
    await recover(named[named.length - 1]!.ok);
  }
  await Promise.all(chosen.filter((x) => WAITING_CASES.has(x.name)).map(runNamed));

  const after = { getTicks: 0, generate: 0, detail: '' };
  if (!crash) {
    const [a, b] = await Promise.all([
      callJson(w.base, w.token, '/servicegateway/fsi/getTicks', probeBody).catch((e: Error) => ({ status: 0, json: { header: { rc: -1, ac: -1, ai: e.message } } })),
      callJson(w.base, w.token, '/servicegateway/fsi/eqea/generateOrderAnalytics', { table: 'Order', dt: w.day, regenExistingIDs: '1b' }).catch((e: Error) => ({ status: 0, json: { header: { rc: -1, ac: -1, ai: e.message } } })),
    ]);
    Object.assign(after, { getTicks: a.status, generate: b.status, detail: `${a.json.header?.ai ?? ''} ${b.json.header?.ai ?? ''}`.trim() });
  }
  clearInterval(sampler);
  const heap = await gw.gc();
  const m = gw.memory();
  Object.assign(mem, { endRss: m.rss, hwm: m.hwm });
  const byLog = run.execLines() > 0;
  return {
    seed: o.seed,
    restSent,
    qSent: [...qOutcomes.values()].reduce((a, b) => a + b, 0),
    statuses,
    qOutcomes,
    reachedMethod: byLog ? 'the access log (exec=1)' : 'fallback: 200s and 400s with an argument-level ac (2-23, 42); the access log has no exec=1 yet',
    restReached: byLog ? run.execLines() : restReachedFallback,
    qReached,
    crash: mixCrash ?? crash,
    hangs,
    unplanned5xx: unplanned,
    unnamed,
    dropped,
    parser,
    probes,
    memory: mem,
    heap,
    named,
    after,
    seconds: (performance.now() - run.t0) / 1000,
  };
}

/** Why a report fails (empty when it passes): crash, hang, unplanned 5xx, slow correct request, too few reaching the executor, unnamed errors, failed named cases. */
export function failures(r: FuzzReport): string[] {
  const out: string[] = [];
  if (r.crash) out.push(`crash: ${r.crash.split('\n')[0]}`);
  if (r.hangs.length) out.push(`${r.hangs.length} hang(s)`);
  if (r.unplanned5xx.length) out.push(`${r.unplanned5xx.length} unplanned 5xx`);
  if (r.probes.slowestMs > 1000 || r.probes.failed) out.push(`correct requests: slowest ${r.probes.slowestMs.toFixed(0)} ms, ${r.probes.failed} failed`);
  if (r.restSent > 0 && r.restReached / r.restSent < 0.3) out.push(`only ${((100 * r.restReached) / r.restSent).toFixed(0)}% of REST requests reached the executor (at least 30%)`);
  if (r.unnamed.length) out.push(`${r.unnamed.length} error(s) naming neither an argument nor the part at fault`);
  for (const n of r.named) if (!n.ok) out.push(`named case ${n.name} failed: ${n.detail}`);
  if (!r.crash && (r.after.getTicks !== 200 || r.after.generate !== 200)) out.push(`afterwards: getTicks ${r.after.getTicks}, generateOrderAnalytics ${r.after.generate} ${r.after.detail}`);
  return out;
}
