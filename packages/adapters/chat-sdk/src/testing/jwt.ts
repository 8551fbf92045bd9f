import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';

/** An RS256 signing key of a stand-in: its key id, private key and public JWK. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly jwk: Readonly<Record<string, unknown>>;
}

/** Makes a fresh RSA key pair for RS256 tokens, published under `kid`. */
export function createSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  return { kid, privateKey, jwk };
}

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact RS256 JWT of `claims`, signed with `key`. */
export function signJwt(key: SigningKey, claims: Readonly<Record<string, unknown>>): string {
  const head = `${part({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${part(claims)}`;
  return `${head}.${sign('RSA-SHA256', Buffer.from(head), key.privateKey).toString('base64url')}`;
}
