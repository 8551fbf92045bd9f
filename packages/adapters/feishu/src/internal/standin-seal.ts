import { createCipheriv, createHash, randomBytes } from 'node:crypto';

/** A request as Feishu POSTs it to a bot: the JSON text and the headers it signs it with. */
export interface SealedRequest {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** What a request is signed with: the second of `timestamp` and a nonce unique per request. */
export interface Stamp {
  readonly timestamp: string;
  readonly nonce: string;
}

/**
 * An event body as Feishu sends it with an Encrypt Key set: `{ encrypt }` (AES-256-CBC with the
 * SHA-256 of the key, a random IV before the cipher text, base64), signed with
 * sha256(timestamp + nonce + key + body). Without a key the body goes as plain JSON, unsigned.
 */
export function sealEvent(body: unknown, encryptKey: string, stamp: Stamp): SealedRequest {
  if (encryptKey === '')
    return { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  const key = createHash('sha256').update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
  return signed(JSON.stringify({ encrypt: sealed.toString('base64') }), 'sha256', encryptKey, stamp);
}

/** An older card callback, plain JSON signed with sha1(timestamp + nonce + verification token + body). */
export function signCardCallback(body: unknown, verificationToken: string, stamp: Stamp): SealedRequest {
  return signed(JSON.stringify(body), 'sha1', verificationToken, stamp);
}

function signed(text: string, algorithm: 'sha1' | 'sha256', key: string, stamp: Stamp): SealedRequest {
  const signature = createHash(algorithm)
    .update(stamp.timestamp + stamp.nonce + key + text)
    .digest('hex');
  return {
    body: text,
    headers: {
      'content-type': 'application/json',
      'x-lark-request-timestamp': stamp.timestamp,
      'x-lark-request-nonce': stamp.nonce,
      'x-lark-signature': signature,
    },
  };
}
