// Soak: many confirmations across 3 gate replicas on one Redis (each with its own bus, clock and
// connections), with random replica crashes + restarts and replies delivered twice. Every
// confirmation must reach exactly one party (its waiting promise, or the resume handler of the
// restarted replica), agree with the one recorded decision, and leave no pending key behind.
// `npm test` runs 20 000; PARLEY_SOAK=full runs 100 000 (the convention of tests/reliability).
import type { ConfirmDecision } from '@parley/confirm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GateReplica, gateCluster } from './gates.js';
import { type RedisServer, startRedis, until } from './helpers.js';

const FULL = process.env.PARLEY_SOAK === 'full';
const COUNT = FULL ? 100_000 : 20_000;
const WAVE = 250;
const TIMEOUT_MS = 60_000;

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

/** A seeded generator, so a failing run can be replayed (the seed is in the test name). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SEED = 20_261_122;

it(`settles ${COUNT} confirmations exactly once across 3 restarting replicas with duplicated replies (seed ${SEED})`, async () => {
  const started = performance.now();
  const rand = random(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  /** Who learnt each confirmation's decision: its waiter or a resume handler (must be exactly one). */
  const delivered = new Map<string, ConfirmDecision[]>();
  const deliver = (decision: ConfirmDecision): void => {
    const list = delivered.get(decision.id) ?? [];
    list.push(decision);
    delivered.set(decision.id, list);
  };
  const cluster = gateCluster(server, {
    timeoutMs: TIMEOUT_MS,
    cards: false,
    resume: { 'sql.delete': (decision) => deliver(decision) },
  });
  const replicas = new Map<string, GateReplica>();
  const incarnations = new Map<string, number>();

  async function boot(id: string): Promise<void> {
    const n = (incarnations.get(id) ?? 0) + 1;
    incarnations.set(id, n);
    const replica = await cluster.start(n === 1 ? id : `${id}${n}`);

    replicas.set(id, replica);
  }
  for (const id of ['x', 'y', 'z']) await boot(id);

  let restarts = 0;
  let duplicated = 0;
  let timedOut = 0;
  for (let first = 0; first < COUNT; first += WAVE) {
    const size = Math.min(WAVE, COUNT - first);
    // 1. Each confirmation is asked on a random replica, in its own chat.
    const asked = await Promise.all(
      Array.from({ length: size }, async (_, k) => {
        const chat = `c${first + k}`;
        const owner = pick([...replicas.keys()]);
        const { id, decision } = await (replicas.get(owner) as GateReplica).ask(chat);
        decision.then(deliver, () => {}); // a crashed replica's promise never settles
        return { id, chat, owner };
      }),
    );
    // 2. Every replica follows (or holds) every one of them, delivered, so a reply anywhere is
    //    caught and counts (one that reaches a replica before it learns the delivery is too early).
    await until(
      () =>
        [...replicas.values()].every((replica) => {
          const known = [...replica.gate.pending(), ...replica.gate.followed()];
          const held = new Set(known.flatMap((p) => (p.delivered ? [p.id] : [])));
          return asked.every((a) => held.has(a.id));
        }),
      20_000,
      'every replica to follow the wave',
    );
    // 3. Sometimes a replica crashes before the replies and comes back under the same replicaId.
    if (rand() < 0.2) {
      const victim = pick([...replicas.keys()]);
      await (replicas.get(victim) as GateReplica).crash();
      await boot(victim);
      restarts++;
    }
    const answered: string[] = [];
    // 4. Replies on random replicas, some delivered to two replicas; some never come.
    const live = [...replicas.values()];
    const statuses = await Promise.all(
      asked.map(async ({ chat }, k) => {
        const roll = rand();
        if (roll < 0.25) {
          timedOut++;
          return ['intercepted'];
        }
        answered.push(asked[k]?.id as string);
        const text = roll < 0.7 ? '确认' : '取消';
        const eventId = `e${first + k}`;
        const target = pick(live);
        if (rand() >= 0.2) return [await target.say(chat, text, { eventId })];
        duplicated++;
        const other = pick(live.filter((r) => r !== target));
        return Promise.all([target.say(chat, text, { eventId }), other.say(chat, text, { eventId })]);
      }),
    );
    expect(statuses.flat().filter((s) => s !== 'intercepted')).toEqual([]); // never forwarded to an agent
    // A reply is decided when its compare-and-set lands; only then does the deadline pass (a reply
    // racing its deadline may lose to the timeout, which would be right but not what is counted).
    await until(() => answered.every((id) => delivered.has(id)), 20_000, 'every answered confirmation');
    // 5. Time passes on every replica: what was not answered times out (all of them race to expire it).
    cluster.advance(TIMEOUT_MS);
    await until(() => asked.every((a) => delivered.has(a.id)), 20_000, 'every decision of the wave');
    for (const replica of replicas.values()) replica.channel.clear();
  }

  // Exactly once, and what was delivered is what was recorded.
  const doubles = [...delivered.values()].filter((list) => list.length !== 1);
  expect(doubles).toEqual([]);
  expect(delivered.size).toBe(COUNT);
  const anyReplica = replicas.get('x') as GateReplica;
  let recorded = 0;
  const outcomes: Record<string, number> = {};
  for await (const decision of anyReplica.gate.audit()) {
    recorded++;
    expect(delivered.get(decision.id)?.[0]?.outcome).toBe(decision.outcome);
    outcomes[decision.outcome] = (outcomes[decision.outcome] ?? 0) + 1;
  }
  expect(recorded).toBe(COUNT);
  expect(outcomes.timed_out).toBe(timedOut);
  for (const replica of replicas.values()) expect(replica.gate.pending()).toEqual([]);

  // No leaked keys: only decisions (audit, each with a TTL) and the prefix's version counter remain.
  const redis = server.client();
  const kinds: Record<string, number> = {};
  let withoutTtl = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${cluster.prefix}*`, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.pttl(key);
    const ttls = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      const rest = key.slice(cluster.prefix.length);
      const kind = rest === 'version' ? 'version' : rest.split(':').slice(0, 3).join(':');
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (kind !== 'version' && !((ttls[i]?.[1] as number) > 0)) withoutTtl++;
    });
  } while (cursor !== '0');
  expect(kinds).toEqual({ 'data:confirm:decision': COUNT, version: 1 });
  expect(withoutTtl).toBe(0);
  // Errors of the live replicas (a crashed one's gate kept running against its closed store).
  expect([...replicas.values()].flatMap((replica) => replica.errors)).toEqual([]);

  await cluster.closeAll();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `soak: ${COUNT} confirmations in ${seconds} s; ${restarts} restarts, ${duplicated} duplicated replies, ` +
      `${timedOut} timeouts; outcomes ${JSON.stringify(outcomes)}`,
  );
}, 600_000);
