/**
 * Where a script reaches a connection over REST and kdb+ IPC, for "Copy as" (ConnectionInfo.gateway):
 * a remote's URL, token URL, client id and the q port its getMeta advertises; the embedded engine's
 * own gateway where this process serves one (gatewayPort, gatewayIpcPort, or `tickscope gateway`);
 * else the commands that start `tickscope gateway` on the same databases (and make a client when the
 * clients file has none) with the ports and realm those commands then use. Never a secret.
 */
import type { MountSpec } from '../storage/mount.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayAccess } from '../contract.js';
import { Clients, type StoredClient } from '../gateway/clients.js';
import { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_IPC_PORT, DEFAULT_GATEWAY_PORT, tokenUrlOf } from '../gateway/defaults.js';
import type { ServedGateway } from '../gateway/host.js';

/** The client id the text proposes when the clients file has none yet (the `clients add` line makes it). */
export const SUGGESTED_CLIENT_ID = 'scripts';

/** A shell word in single quotes (paths with spaces or quotes survive a paste). */
export const shellWord = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * How a user runs `tickscope` from any folder: node and this checkout's bin/tickscope.cjs (two folders
 * up from this module, from the sources and from every dist/ bundle alike), else `npx tickscope`.
 */
export function tickscopeCommand(): string {
  const bin = fileURLToPath(new URL('../../bin/tickscope.cjs', import.meta.url));
  return existsSync(bin) ? `node ${shellWord(bin)}` : 'npx tickscope';
}

/** The client a script should use: one with both scopes (every operation), else one that reads, else any. */
function pickClient(list: readonly StoredClient[]): string | null {
  return (list.find((c) => c.scopes.includes('fsi.generate') && c.scopes.includes('fsi.read')) ?? list.find((c) => c.scopes.includes('fsi.read')) ?? list[0])?.id ?? null;
}

/** The clients of a file, or none when it is missing or unreadable (the commands then say what to do). */
function clientsOf(file: string): readonly StoredClient[] {
  try {
    return Clients.load(file).list();
  } catch {
    return [];
  }
}

/**
 * The embedded engine's access: its own gateway's where this process serves one, else the commands
 * that start `tickscope gateway` over `dirs` with the app's clients file (`clients.json` in the user
 * data folder, which the app's own gateway reads too) at its default ports.
 */
export function embeddedAccess(dirs: readonly MountSpec[], served: ServedGateway | null, userData: string): GatewayAccess {
  const clientsFile = join(userData, 'clients.json');
  if (served?.rest?.tokenUrl) {
    served.clients?.refresh();
    const clientId = served.oneOffId ?? pickClient(served.clients?.list() ?? []) ?? SUGGESTED_CLIENT_ID;
    return { url: served.rest.url, tokenUrl: served.rest.tokenUrl, q: served.q, clientId };
  }
  const cli = tickscopeCommand();
  const existing = pickClient(clientsOf(clientsFile));
  const url = `http://${DEFAULT_GATEWAY_HOST}:${DEFAULT_GATEWAY_PORT}`;
  return {
    url,
    tokenUrl: tokenUrlOf(url),
    q: served?.q ?? { host: DEFAULT_GATEWAY_HOST, port: DEFAULT_GATEWAY_IPC_PORT, tls: false },
    clientId: existing ?? SUGGESTED_CLIENT_ID,
    start: {
      gateway: `${cli} gateway ${dirs.map((d) => `--db ${shellWord(resolve(d.dir))}${d.kdbSettings ? ` --kdb-settings ${shellWord(d.kdbSettings)}` : ''}`).join(' ')} --clients ${shellWord(clientsFile)}`,
      ...(existing ? {} : { addClient: `${cli} clients add --clients ${shellWord(clientsFile)} --id ${SUGGESTED_CLIENT_ID} --scopes fsi.read,fsi.generate` }),
      clientsFile,
    },
  };
}
