/**
 * What the gateway serves: the app's backend (service/query-service.ts, QueryService) as the REST and
 * q IPC gateways see it. They are typed against this, not against the service, so the service may
 * build on the gateway's clients and defaults (Copy as) without the two importing each other.
 */
import type { AppInfo } from '../contract.js';
import type { Executor } from '../executor/executor.js';
import type { Clients } from './clients.js';

/** A gateway this process serves on its engine: what its getMeta advertises and Copy as writes. */
export interface ServedGateway {
  /** The REST gateway: its base URL and token endpoint (null with an external issuer). */
  readonly rest: { readonly url: string; readonly tokenUrl: string | null } | null;
  /** The kdb+ IPC gateway. */
  readonly q: { readonly host: string; readonly port: number; readonly tls: boolean } | null;
  /** Its clients (a client id to name), and the id of a one-off client made at its start. */
  readonly clients: Clients | null;
  readonly oneOffId?: string;
}

/** The backend a gateway serves. */
export interface GatewayHost {
  /** Runs the queries and renders their answers (Executor.envelope), with the process's settings. */
  readonly executor: Executor;
  /** getMeta's payload. */
  info(): Promise<AppInfo>;
  /** Records the gateway serving this backend (getMeta advertises its q port; Copy as names it); returns what forgets it. */
  serveGateway(g: ServedGateway): () => void;
}
