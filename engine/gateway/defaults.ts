/**
 * `tickscope gateway`'s defaults, in one place: the command uses them, and "Copy as" writes them into
 * the text it gives for an engine no gateway serves yet, so the two cannot disagree. A tiny module:
 * every `tickscope` command loads it, none of the gateway's code.
 */

/** The REST port `tickscope gateway` listens on without --port. */
export const DEFAULT_GATEWAY_PORT = 8080;
/** The kdb+ IPC port `tickscope gateway` listens on without --ipc-port. */
export const DEFAULT_GATEWAY_IPC_PORT = 5010;
/** The token endpoint's realm (and the tokens' audience) without --realm. */
export const DEFAULT_REALM = 'tickscope';
/** The address it binds without --host. */
export const DEFAULT_GATEWAY_HOST = '127.0.0.1';

/** The token endpoint of a gateway's own issuer at a base URL (SPEC 7, INTERFACE 5). */
export const tokenUrlOf = (base: string, realm: string = DEFAULT_REALM): string => `${base.replace(/\/+$/, '')}/auth/realms/${encodeURIComponent(realm)}/protocol/openid-connect/token`;
