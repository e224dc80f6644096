/**
 * The app's own engine served as a gateway (REST and kdb+ IPC) on loopback, when the process settings
 * ask for it (`gatewayPort`, `gatewayIpcPort`): scripts and q sessions on the same machine query what
 * the app shows. Clients come from `clients.json` in the user data folder (`tickscope clients add
 * --clients <that file>`); without one, a one-off client is made and reported once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessSettings } from '../executor/settings.js';
import type { GatewayHost } from './host.js';
import { Clients } from './clients.js';
import { startQGateway } from './qipc/server.js';
import { startGateway } from './rest.js';

export interface EmbeddedGateway {
  /** One paragraph for the user: where it listens, the token URL, and a one-off client's credentials. */
  readonly summary: string;
  close(): Promise<void>;
}

export async function startEmbeddedGateway(service: GatewayHost, settings: ProcessSettings, userDataDir: string | undefined): Promise<EmbeddedGateway | null> {
  if (!settings.gatewayPort && !settings.gatewayIpcPort) return null;
  const file = userDataDir ? join(userDataDir, 'clients.json') : undefined;
  let clients = file && existsSync(file) ? Clients.load(file) : Clients.inMemory();
  let oneOff = '';
  let oneOffId: string | undefined;
  if (clients.size === 0) {
    clients = Clients.inMemory();
    oneOffId = `tickscope-app-${Math.random().toString(36).slice(2, 8)}`;
    oneOff = `one-off client (shown once, gone when the app stops): client_id ${oneOffId}  client_secret ${clients.add(oneOffId, ['fsi.read', 'fsi.generate'])}`;
  }
  const host = '127.0.0.1';
  const rest = settings.gatewayPort ? await startGateway(service, { host, port: settings.gatewayPort, realm: 'tickscope', tokenTtlSeconds: 300, clients }) : null;
  const ipc = settings.gatewayIpcPort ? await startQGateway(service, { host, port: settings.gatewayIpcPort, clients }) : null;
  // Copy as names this gateway, and its getMeta its q port
  const forget = service.serveGateway({ rest: rest ? { url: rest.url, tokenUrl: rest.tokenUrl } : null, q: ipc ? { host, port: ipc.port, tls: false } : null, clients, ...(oneOffId ? { oneOffId } : {}) });
  const lines = [
    `Tickscope also serves its engine as a gateway on loopback:${rest ? ` REST at ${rest.url}/servicegateway/fsi/<operation> (tokens: POST ${rest.tokenUrl})` : ''}${ipc ? `${rest ? ';' : ''} kdb+ IPC at ${host}:${ipc.port}` : ''}.`,
    oneOff || `clients from ${file}`,
  ];
  return {
    summary: lines.join('\n'),
    close: async () => {
      forget();
      await rest?.close();
      await ipc?.close();
    },
  };
}
