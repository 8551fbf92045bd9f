import { equalBytes, hmacSha256, utf8 } from './sha256.js';

/** The choices a card button can carry. */
export type CardChoice = 'confirm' | 'cancel' | 'always';

const CHOICES: readonly string[] = ['confirm', 'cancel', 'always'];

/**
 * Card tokens: `id.choice` without a secret (the id is unguessable), `id.choice.signature` with
 * one, where the signature is HMAC-SHA256 over `id.choice` keyed by the host secret (base64url).
 */
export interface TokenCodec {
  sign(id: string, choice: CardChoice): string;
  /** The id and choice of a token, or `undefined` when it is malformed or its signature is wrong. */
  verify(token: string): { id: string; choice: CardChoice } | undefined;
}

export function createTokenCodec(secret: string | Uint8Array | undefined): TokenCodec {
  const key =
    secret === undefined ? undefined : typeof secret === 'string' ? utf8(secret) : Uint8Array.from(secret);
  const mac = (body: string): Uint8Array => hmacSha256(key as Uint8Array, utf8(body)); // only called with a key
  return {
    sign(id, choice) {
      const body = `${id}.${choice}`;
      return key === undefined ? body : `${body}.${toBase64Url(mac(body))}`;
    },
    verify(token) {
      if (typeof token !== 'string' || token.length > 512) return undefined;
      const parts = token.split('.');
      const [id, choice, signature] = parts;
      if (id === undefined || id === '' || choice === undefined || !CHOICES.includes(choice))
        return undefined;
      if (parts.length !== (key === undefined ? 2 : 3)) return undefined;
      if (key !== undefined) {
        const bytes = fromBase64Url(signature as string);
        if (bytes === undefined || !equalBytes(bytes, mac(`${id}.${choice}`))) return undefined;
      }
      return { id, choice: choice as CardChoice }; // checked against CHOICES above
    },
  };
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(text)) return undefined;
  if (text.length % 4 === 1) return undefined; // no base64 text has this length
  const binary = atob(
    text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4),
  );
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
