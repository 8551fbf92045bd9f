// The README's "Switching from the memory store" snippet: the code between the #region markers
// below must be the README's code block, and it runs here against a real Redis.
import { readFileSync } from 'node:fs';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '@parley/correlate';
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisStore } from '../src/index.js';
import { type RedisServer, startRedis } from './helpers.js';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

/** The snippet's client, but dropping a closed socket within 20 ms (no timer outlives the test). */
class Redis extends IORedis {
  constructor(url: string) {
    super(url, { disconnectTimeout: 20 });
  }
}

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const SELF = readFileSync(new URL(import.meta.url), 'utf8');

function readmeBlock(heading: string): string {
  const section = README.slice(README.indexOf(heading));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined) throw new Error(`No ts block under "${heading}"`);
  return match[1];
}

function region(name: string): string {
  const start = SELF.indexOf(`// #region ${name}\n`);
  const end = SELF.indexOf('    // #endregion', start);
  const body = SELF.slice(start, end).split('\n').slice(1);
  return body.map((line) => line.replace(/^ {4}/, '')).join('\n');
}

it('shows, in the README, exactly the switch-over code this test runs', () => {
  const imports = readmeBlock('## Switching from the memory store').split('\n\n')[0];
  expect(imports).toBe(
    [
      "import { Redis } from 'ioredis';",
      "import { createMessageBus } from '@parley/bus';",
      "import { createConfirmGate } from '@parley/confirm';",
      "import { createCorrelator, shutdownProtocol } from '@parley/correlate';",
      "import { createRedisStore } from '@parley/redis';",
    ].join('\n'),
  );
  const code = readmeBlock('## Switching from the memory store').split('\n\n').slice(1).join('\n\n');
  expect(code).toBe(region('switch'));
});

it('runs the switch-over: the gate and the correlator keep their state in Redis', async () => {
  process.env.REDIS_URL = `redis://127.0.0.1:${server.port}`;
  process.env.HOSTNAME = 'bot-0';
  const transport = { sent: [] as CorrelateMessage[], send: (m: CorrelateMessage) => transport.sent.push(m) };
  const run = async () => {
    // #region switch
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const store = createRedisStore({ redis, prefix: 'billing-bot:' }); // was: createMemoryStore()

    const bus = createMessageBus();
    const gate = createConfirmGate({ bus, store, replicaId: process.env.HOSTNAME ?? 'bot-0' });
    const correlator = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: (message) => transport.send(message),
      store,
    });
    await gate.ready; // confirmations this replica left pending are intercepted again
    await correlator.restore(); // and so are its requests (resume them with correlator.handle)

    // … on shutdown:
    correlator.close();
    await gate.close();
    await store.close();
    await redis.quit();
    // #endregion
    return { gate, correlator, store };
  };
  // Before running it, leave a request pending in Redis, as a previous run of the bot would have.
  const before = server.client({ disconnectTimeout: 20 });
  const previous = createRedisStore({ redis: before, prefix: 'billing-bot:' });
  const old = createCorrelator({
    self: 'lead',
    protocols: [shutdownProtocol],
    send: () => {},
    store: previous,
  });
  old.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
  const keys = async () => (await before.keys('billing-bot:data:*')).length;
  while ((await keys()) === 0) await new Promise((resolve) => setImmediate(resolve));
  old.close();
  await previous.close();

  const { correlator } = await run();
  expect(correlator.stats().pending).toBe(0); // closed at the end of the snippet
  expect(await keys()).toBe(1); // the pending request stays in Redis for the next start
  const after = createRedisStore({ redis: before, prefix: 'billing-bot:' });
  const restored = createCorrelator({
    self: 'lead',
    protocols: [shutdownProtocol],
    send: () => {},
    store: after,
  });
  expect(await restored.restore()).toBe(1);
  restored.close();
  await after.close();
  server.disconnectClients();
});
