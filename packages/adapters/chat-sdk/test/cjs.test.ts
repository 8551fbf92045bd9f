// The CJS build, the way a CommonJS consumer on Node 20.0–20.18 loads it (no require(esm)): it
// loads without `chat` (ESM-only), and its first card loads `chat` with import(), so a card it
// sends is the Chat SDK's own card element. Runs on the built package (`npm run build`).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const CJS = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

const SCRIPT = `
const { createChatSdkAdapter } = require(${JSON.stringify(CJS)});
const posted = [];
const noop = () => {};
const bot = {
  onNewMention: noop, onSubscribedMessage: noop, onNewMessage: noop, onMessageUpdated: noop, onAction: noop,
  thread: () => { throw new Error('no thread here'); },
  channel: () => ({ post: async (message) => { posted.push(message); return { id: '1', metadata: { dateSent: new Date(5) } }; } }),
};
const adapter = createChatSdkAdapter({ bot });
(async () => {
  const card = { buttons: [{ label: 'OK', value: { confirmation: 'c1.confirm' } }] };
  const receipt = await adapter.send({ channel: 'chat-sdk', chatId: 'teams:c1', text: 'go?', card, sessionKey: 's', createdAt: 0 });
  const { isCardElement } = await import('chat');
  console.log(JSON.stringify({ card: isCardElement(posted[0].card), receipt }));
})();
`;

it.skipIf(!existsSync(CJS))('loads without require(esm) and sends a Chat SDK card through import()', () => {
  const output = execFileSync(process.execPath, ['--no-experimental-require-module', '-e', SCRIPT], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  });
  // a Teams id carries no time or order; the receipt has the message id only
  expect(JSON.parse(output)).toEqual({ card: true, receipt: { messageId: '1' } });
});
