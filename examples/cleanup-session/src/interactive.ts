// `--interactive`: you type the user's replies; the vault, platform and notifier are still fakes.
import { createInterface } from 'node:readline/promises';
import { generateId, systemClock } from '@parley/core';
import { createFakePlatform, createFakeStore } from '@parley/testing';
import { createFakeNotifier, createFakeVault } from './adapters.js';
import { startCleanupSession } from './host.js';
import { HINTS } from './replies.js';
import { createTranscript } from './transcript.js';

const DEMO_CREDENTIALS = {
  'vault://demo/x-report': { scopes: ['report:write'], minutes: 30 },
  'vault://demo/x-delete': { scopes: ['content:delete'], minutes: 30 },
  'vault://demo/expired': { scopes: ['content:delete'], minutes: -60 },
  'vault://demo/admin': { scopes: ['content:delete', 'account:admin'], minutes: 30 },
} as const;

export async function runInteractive(): Promise<void> {
  const clock = systemClock;
  const now = clock.now();
  const credentials = Object.fromEntries(
    Object.entries(DEMO_CREDENTIALS).map(([ref, c]) => [
      ref,
      { scopes: c.scopes, expiresAt: now + c.minutes * 60_000 },
    ]),
  );
  const store = createFakeStore({ clock });
  const transcript = createTranscript(clock, (line) => console.log(line));
  console.log('Interactive cleanup session. The demo vault (a fake) holds:');
  for (const [ref, c] of Object.entries(DEMO_CREDENTIALS))
    console.log(`  ${ref}  ${c.scopes.join(' ')}  ${c.minutes} min`);
  console.log('Type "quit" to stop.\n');
  const host = await startCleanupSession({
    store,
    clock,
    generateId: (prefix) => generateId(prefix),
    platform: createFakePlatform({ otherwise: 'success' }),
    vault: createFakeVault(clock, credentials),
    notifier: createFakeNotifier(),
    transcript,
    saveDelaysMs: [200, 400],
  });
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator](); // buffers lines, so piped input works too
  try {
    while (!host.done) {
      const step = host.step;
      process.stdout.write(step === 'done' ? '> ' : `(${HINTS[step]})\n> `);
      const next = await lines.next();
      if (next.done === true || next.value.trim() === 'quit') break;
      await host.reply(next.value);
    }
    console.log(`\nsession JSON:\n${JSON.stringify(host.sessionJson(), null, 2)}`);
  } finally {
    host.stop(); // a reminder still due would be sent by the next host that resumes the session
    rl.close();
    await store.close();
  }
}
