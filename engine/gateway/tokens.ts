/**
 * Access tokens of the gateway (SPEC 7), made and checked with jose, never by hand.
 *
 * - Own issuer: the gateway answers the client credentials grant with an HS256 JWT (issuer the
 *   realm's URL, audience the realm's name unless --audience, `scope` the client's scopes, expiry
 *   --token-ttl). The signing key is random per process: tokens die with the gateway (a client asks
 *   again on 401).
 * - External issuer (--jwks URL --issuer ISS): RS256 tokens of a Keycloak realm (or any OIDC issuer),
 *   verified against its JWKS; scopes read from the claim --scope-claim names.
 *
 * Only the configured algorithm is accepted, so `alg: none` and algorithm confusion (an HS256 token
 * signed with the RSA public key) fail verification.
 */
import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { TickscopeError } from '../core/errors.js';
import { type Scope, SCOPES } from './clients.js';

export interface TokenCheck {
  /** The client (subject) and its scopes. */
  readonly subject: string;
  readonly scopes: readonly Scope[];
}

export interface TokenVerifier {
  verify(token: string): Promise<TokenCheck>;
}

/** Why a token failed, as the 401 message says it. */
function rejected(e: unknown): TickscopeError {
  const why =
    e instanceof errors.JWTExpired
      ? 'the token has expired; request a new one'
      : e instanceof errors.JWTClaimValidationFailed
        ? e.claim === 'nbf'
          ? 'the token is not valid yet (nbf)'
          : e.claim === 'iss'
            ? 'the token is of another issuer'
            : e.claim === 'aud'
              ? 'the token is for another audience'
              : `the token's ${e.claim} claim is not valid`
        : e instanceof errors.JWSSignatureVerificationFailed
          ? 'the token signature does not verify'
          : e instanceof errors.JOSEAlgNotAllowed
            ? 'the token is signed with an algorithm this gateway does not accept'
            : e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid || e instanceof errors.JOSENotSupported
              ? 'the token is malformed'
              : e instanceof errors.JWKSNoMatchingKey
                ? 'the token is signed with a key the issuer does not publish'
                : `the token was not accepted (${(e as Error).message})`;
  return new TickscopeError('unauthorized', `Authorization: ${why}`);
}

/** How far in the future a token's `iat` may be (clock skew between machines), in seconds. */
export const IAT_SKEW_S = 60;

/** The real clock: what a verifier reads the time from unless given another (tests move theirs on). */
const realNow = (): Date => new Date();

/** Refuses a token issued in the future beyond the skew (jose checks `iat` only with maxTokenAge). */
function checkIssuedAt(payload: JWTPayload, now: Date): void {
  if (payload.iat !== undefined && payload.iat > now.getTime() / 1000 + IAT_SKEW_S) {
    throw new TickscopeError('unauthorized', `Authorization: the token is issued in the future (iat ${payload.iat}, more than ${IAT_SKEW_S} s ahead of this gateway's clock)`);
  }
}

/** Scopes from a claim's value: a space-separated string (OAuth2 `scope`) or an array (Keycloak roles). */
function scopesOf(value: unknown): Scope[] {
  const list = typeof value === 'string' ? value.split(/\s+/) : Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
  return list.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
}

/** A claim by dotted path (`resource_access.tickscope.roles`). */
function claimAt(payload: JWTPayload, path: string): unknown {
  let v: unknown = payload;
  for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/** The gateway as its own token issuer. */
export class OwnIssuer implements TokenVerifier {
  constructor(
    /** The `iss` of the tokens (set once the gateway knows the address it listens on). */
    public issuer: string,
    readonly audience: string,
    readonly ttlSeconds: number,
    /** The signing key: random per process (tests give their own). */
    key: Uint8Array = randomBytes(32),
    /** The clock tokens are issued and checked by (tests move theirs on instead of waiting). */
    private readonly now: () => Date = realNow,
  ) {
    // a KeyObject made once: given raw bytes, jose imports the key anew for every token it checks
    this.key = createSecretKey(key);
  }

  private readonly key: KeyObject;

  async issue(subject: string, scopes: readonly Scope[]): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number }> {
    const at = this.now();
    const token = await new SignJWT({ scope: scopes.join(' ') })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setIssuedAt(at)
      .setNotBefore(at)
      .setExpirationTime(Math.floor(at.getTime() / 1000) + this.ttlSeconds)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(this.key);
    return { access_token: token, token_type: 'Bearer', expires_in: this.ttlSeconds };
  }

  async verify(token: string): Promise<TokenCheck> {
    try {
      const now = this.now();
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: this.issuer, audience: this.audience, requiredClaims: ['exp', 'sub'], currentDate: now });
      checkIssuedAt(payload, now);
      return { subject: payload.sub!, scopes: scopesOf(payload['scope']) }; // not an argument: the token's OAuth2 claim
    } catch (e) {
      throw e instanceof TickscopeError ? e : rejected(e);
    }
  }
}

/** Tokens of an external issuer, checked against its JWKS (RS256). */
export class ExternalIssuer implements TokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    jwksUrl: string,
    readonly issuer: string,
    readonly audience: string | undefined,
    readonly scopeClaim = 'scope',
    /** The clock tokens are checked by (tests move theirs on instead of waiting). */
    private readonly now: () => Date = realNow,
  ) {
    this.jwks = createRemoteJWKSet(new URL(jwksUrl));
  }

  async verify(token: string): Promise<TokenCheck> {
    try {
      const now = this.now();
      const { payload } = await jwtVerify(token, this.jwks, { algorithms: ['RS256'], issuer: this.issuer, ...(this.audience ? { audience: this.audience } : {}), requiredClaims: ['exp'], currentDate: now });
      checkIssuedAt(payload, now);
      return { subject: payload.sub ?? String(payload['azp'] ?? payload['client_id'] ?? ''), scopes: scopesOf(claimAt(payload, this.scopeClaim)) };
    } catch (e) {
      throw e instanceof TickscopeError ? e : rejected(e);
    }
  }
}
