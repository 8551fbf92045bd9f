// The process that tests/reliability/crash.test.ts kills. A small bot: a bus with one chat
// adapter, a confirmation gate and a tool gate (both on the Redis store), and one destructive tool
// whose executor records each execution in Redis. It boots, restores what the store holds, waits
// for `go`, then processes the model's one tool call (the same batch on every boot, as a host
// replays its last model output after a restart) and prints the result.
//
// Run: node --import tsx tests/reliability/crash-child.ts   (env: REDIS_PORT, PREFIX, KILL_AT, CONFIRM_TIMEOUT_MS)
// stdout, one line each: READY <pending json> | OUT <outbound json> | AT <point> | INBOUND <text>
//   | SAID <status> | RESULT <json> | HEARD, DECIDED, IGNORED, REFUSED, PROMPTED <json> (for diagnosis).   stdin: `say <sender> <text>`, `go`, `continue`.
import { createInterface } from 'node:readline';
import { type ChannelAdapter, createMessageBus, type DeliverInbound } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createRedisStore } from '@parley/redis';
import { createToolGate, defineTool } from '@parley/tools';
import { Redis } from 'ioredis';
import { z } from 'zod';

/** Where the parent may kill this process: it prints `AT <point>` there and goes on. */
type KillPoint = 'before-prompt' | 'after-prompt' | 'after-reply' | 'mid-execution';

const port = Number(process.env.REDIS_PORT);
const prefix = String(process.env.PREFIX);
const killAt = process.env.KILL_AT ?? '';

const print = (kind: string, value: unknown = ''): void => {
  process.stdout.write(`${kind} ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
};
const at = (point: KillPoint): void => {
  if (point === killAt) print('AT', point);
};

const lines = createInterface({ input: process.stdin });
const waiting: ((line: string) => boolean)[] = [];
const commands: string[] = [];
lines.on('line', (line) => {
  const index = waiting.findIndex((accept) => accept(line));
  if (index >= 0) waiting.splice(index, 1);
  else commands.push(line);
});
/** Resolves on the next stdin line equal to `word` (or at once if it came already). */
function expectLine(word: string): Promise<void> {
  const seen = commands.indexOf(word);
  if (seen >= 0) {
    commands.splice(seen, 1);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    waiting.push((line) => {
      if (line !== word) return false;
      resolve();
      return true;
    });
  });
}

const redis = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
const store = createRedisStore({ redis, prefix });

let deliver: DeliverInbound | undefined;
const adapter: ChannelAdapter = {
  channel: 'feishu',
  send(message) {
    if (message.card !== undefined) at('before-prompt');
    print('OUT', { chatId: message.chatId, text: message.text, card: message.card ?? null });
    if (message.card !== undefined) at('after-prompt');
  },
  connect(d) {
    deliver = d;
  },
};

const bus = createMessageBus();
await bus.attach(adapter);
// Short, so a restored confirmation whose prompt the user never saw expires (with its notice) soon.
const timeoutMs = Number(process.env.CONFIRM_TIMEOUT_MS ?? 300_000);
const confirm = createConfirmGate({ bus, store, keyPrefix: 'confirm:', timeoutMs });
confirm.on('decided', ({ decision }) => {
  const { outcome, reason, promptedAt, expiresAt, decidedAt } = decision;
  print('DECIDED', { outcome, reason, promptedAt, expiresAt, decidedAt, now: Date.now() });
  if (decision.outcome === 'confirmed') at('after-reply');
});
// What the gate saw and did not count, for a failing run's output.
confirm.on('ignored', ({ code }) => print('IGNORED', { code, now: Date.now() }));
confirm.on('refused', ({ code }) => print('REFUSED', { code, now: Date.now() }));
confirm.on('prompted', () => print('PROMPTED', { now: Date.now() }));
confirm.on('error', ({ error }) => print('ERROR', String(error)));

const purge = defineTool({
  name: 'db_purge',
  description: 'Deletes the rows of a table that match a filter',
  args: z.object({ table: z.string(), where: z.string() }),
  reasons: ['no_such_table'],
  confirm: true,
  async execute(args, { call }) {
    const entry = JSON.stringify({ call: call.id, pid: process.pid });
    await redis.rpush(`${prefix}executions:started`, entry);
    at('mid-execution');
    if (killAt === 'mid-execution') await expectLine('continue'); // the parent kills here instead
    await redis.rpush(`${prefix}executions:finished`, entry);
    return { deleted: 3, table: args.table };
  },
});
const tools = createToolGate({
  tools: [purge],
  allowlist: ['db_purge'],
  confirm,
  store,
  storePrefix: 'tools:',
});

await confirm.ready;
print('READY', confirm.pending());

// The agent: whatever the bus forwards is ordinary chat.
void (async () => {
  for await (const message of bus.inbound()) print('INBOUND', message.text);
})();

// The user, as the parent scripts it.
lines.on('line', (line) => {
  const match = /^say (\S+) (.+)$/.exec(line);
  if (match === null || deliver === undefined) return;
  print('HEARD', { now: Date.now() });
  void deliver({ chatId: 'g1', senderId: match[1] as string, text: match[2] as string }).then((result) =>
    print('SAID', result.status),
  );
});

await expectLine('go');
const result = await tools.process(
  [{ id: 'call_1', tool: 'db_purge', args: { table: 'orders', where: 'status = 1' } }],
  { turn: 1, context: undefined, sessionKey: 'feishu:g1', requester: 'alice' },
);
print('RESULT', {
  executed: result.executed.map((call) => ({ id: call.id, replayed: call.replayed })),
  failed: result.feedback.failed_calls.map((call) => call.code),
});
await confirm.close();
await store.close();
redis.disconnect();
lines.close();
