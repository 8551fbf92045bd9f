/** The choices a card button can carry. */
export type CardChoice = 'confirm' | 'cancel' | 'always';

const CHOICES: readonly string[] = ['confirm', 'cancel', 'always'];

/**
 * Card tokens: `id.choice` without a secret (the id is unguessable), `id.choice.signature` with
 * one, where the signature is HMAC-SHA256 over `id.choice` keyed by the host secret.
 */
export interface TokenCodec {
  sign(id: string, choice: CardChoice): Promise<string>;
  /** The id and choice of a token, or `undefined` when it is malformed or its signature is wrong. */
  verify(token: string): Promise<{ id: string; choice: CardChoice } | undefined>;
}

export function createTokenCodec(secret: string | Uint8Array | undefined): TokenCodec {
  let key: Promise<CryptoKey> | undefined;
  const getKey = (raw: string | Uint8Array): Promise<CryptoKey> => {
    key ??= crypto.subtle.importKey(
      'raw',
      typeof raw === 'string' ? new TextEncoder().encode(raw) : Uint8Array.from(raw),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    return key;
  };
  return {
    async sign(id, choice) {
      const body = `${id}.${choice}`;
      if (secret === undefined) return body;
      const signature = await crypto.subtle.sign(
        'HMAC',
        await getKey(secret),
        new TextEncoder().encode(body),
      );
      return `${body}.${toBase64Url(new Uint8Array(signature))}`;
    },
    async verify(token) {
      if (typeof token !== 'string' || token.length > 512) return undefined;
      const parts = token.split('.');
      const [id, choice, signature] = parts;
      if (id === undefined || id === '' || choice === undefined || !CHOICES.includes(choice))
        return undefined;
      if (parts.length !== (secret === undefined ? 2 : 3)) return undefined;
      if (secret !== undefined) {
        const bytes = fromBase64Url(signature as string);
        if (bytes === undefined) return undefined;
        const ok = await crypto.subtle.verify(
          'HMAC',
          await getKey(secret),
          bytes,
          new TextEncoder().encode(`${id}.${choice}`),
        );
        if (!ok) return undefined;
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

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(text)) return undefined;
  if (text.length % 4 === 1) return undefined; // no base64 text has this length
  const binary = atob(
    text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4),
  );
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
