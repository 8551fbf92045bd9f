import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createRedisStore } from '@parley/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cite } from './catalogue.js';
import { FULL, soak } from './config.js';

// Crash recovery with real processes and a real, durable Redis (append-only file, fsync on every
// write). A child bot runs a confirmation flow and is killed with SIGKILL at a point of its
// lifecycle; a restarted child on the same store must recover: no lost confirmation, no duplicate
// execution, no execution without a recorded approval, and an execution cut off mid-way reported
// as outcome_unknown and never run again. Waiting here is on real processes and Redis: every wait
// polls an event with a deadline.

const KILLS = soak(20, 200);
/** Where the child prints `AT <point>` (see crash-child.ts) and gets killed. */
const KILL_POINTS = ['before-prompt', 'after-prompt', 'after-reply', 'mid-execution'] as const;
type KillPoint = (typeof KILL_POINTS)[number];
const ROOT = join(import.meta.dirname, '..', '..');
const CHILD = join(import.meta.dirname, 'crash-child.ts');
/**
 * How long the parent waits for each line it expects. On a loaded 2-core CI machine one run of this
 * test took 5× its quiet time (a child boot is a `tsx` start and a Redis write with fsync).
 */
const STEP_MS = 60_000;
/**
 * The child's confirmation timeout, in real time. The deadline starts when the confirmation is
 * activated, before its pending record is written with fsync, so a stalled disk eats into it: on
 * the CI machine a 3 s and later a 15 s timeout ran out before the answer counted (the run ended
 * `confirmation_timed_out`). No scenario waits for it to expire: a prompt never shown is settled
 * `prompt_failed` on restore, and one shown is answered by the next boot. The child prints what
 * the gate decided, ignored and refused, with times, so a failure shows which wait was long.
 */
const CONFIRM_TIMEOUT_MS = 120_000;

interface Server {
  readonly port: number;
  stop(): Promise<void>;
}

/** A redis-server on a free loopback port, persisting every write to its append-only file. */
async function startRedis(): Promise<Server> {
  const bin = process.env.REDIS_SERVER ?? 'redis-server';
  execFileSync(bin, ['--version'], { stdio: 'pipe' }); // a clear failure when Redis is missing
  const dir = mkdtempSync(join(tmpdir(), 'parley-crash-'));
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
  const proc = spawn(bin, [...args, '--appendonly', 'yes', '--appendfsync', 'always'], { stdio: 'ignore' });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => {});
    const up = await client.connect().then(
      () => client.ping().then((reply) => reply === 'PONG'),
      () => false,
    );
    client.disconnect();
    if (up) break;
    if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // polling a starting server, with a deadline
  }
  return {
    port,
    async stop() {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Boot {
  readonly lines: string[];
  readonly proc: ChildProcess;
  /** Resolves with the first line (from now on or already seen) that `match` accepts. */
  next(match: (line: string) => boolean, what: string): Promise<string>;
  send(line: string): void;
  readonly exited: Promise<number | null>;
}

function boot(port: number, prefix: string, killAt: KillPoint | undefined): Boot {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_PORT: String(port),
      PREFIX: prefix,
      KILL_AT: killAt ?? '',
      CONFIRM_TIMEOUT_MS: String(CONFIRM_TIMEOUT_MS),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  proc.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  let cursor = 0;
  return {
    lines,
    proc,
    exited,
    send: (line) => proc.stdin?.write(`${line}\n`),
    next(match, what) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          for (; cursor < lines.length; cursor++) {
            const line = lines[cursor] as string;
            if (match(line)) {
              cursor++;
              finish();
              resolve(line);
              return true;
            }
          }
          return false;
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `No ${what} from the child within ${STEP_MS} ms. Output:\n${lines.join('\n')}\n${stderr}`,
            ),
          );
        }, STEP_MS);
        const onExit = (): void => {
          if (check()) return;
          finish();
          reject(new Error(`The child exited before ${what}. Output:\n${lines.join('\n')}\n${stderr}`));
        };
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(listener);
          proc.off('exit', onExit);
        };
        const listener = (): void => {
          check();
        };
        if (check()) return;
        listeners.add(listener);
        proc.once('exit', onExit);
      });
    },
  };
}

const isPrompt = (line: string): boolean =>
  line.startsWith('OUT ') && JSON.parse(line.slice(4)).card !== null;
const promptId = (line: string): string =>
  String(JSON.parse(line.slice(4)).card.buttons[0].value.confirmation).split('.')[0] as string;

interface Scenario {
  readonly prompts: Set<string>;
  readonly answered: Set<string>;
  readonly outputs: string[];
  result?: { executed: { id: string; replayed: boolean }[]; failed: string[] };
  killedAt?: KillPoint;
  reachedKillPoint: boolean;
}

/**
 * One boot of the bot, driven as its user would: answer the prompt left over from a killed boot,
 * then let it process the batch and confirm what it asks. With `killAt`, SIGKILL it there.
 */
async function run(port: number, prefix: string, scenario: Scenario, killAt?: KillPoint): Promise<void> {
  const child = boot(port, prefix, killAt);
  try {
    await child.next((l) => l.startsWith('READY '), 'READY');
    // A prompt the user saw before the crash and never answered: the user answers it now.
    for (const id of [...scenario.prompts].filter((p) => !scenario.answered.has(p))) {
      scenario.answered.add(id);
      child.send('say alice 确认');
      await child.next((l) => l.startsWith('SAID '), 'SAID');
    }
    child.send('go');
    for (;;) {
      const line = await child.next(
        (l) => isPrompt(l) || l.startsWith('RESULT ') || l === `AT ${killAt}`,
        'a prompt or a result',
      );
      if (line === `AT ${killAt}`) break;
      if (line.startsWith('RESULT ')) {
        scenario.result = JSON.parse(line.slice(7));
        break;
      }
      const id = promptId(line);
      scenario.prompts.add(id);
      if (killAt === 'before-prompt' || killAt === 'after-prompt') {
        await child.next((l) => l === `AT ${killAt}`, `AT ${killAt}`);
        break;
      }
      scenario.answered.add(id);
      child.send('say alice 确认');
    }
    if (killAt !== undefined && scenario.result === undefined) {
      scenario.reachedKillPoint = true;
      child.proc.kill('SIGKILL');
    }
    await child.exited;
  } finally {
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    await child.exited;
    // Prompts that reached the user before the kill count as shown.
    for (const line of child.lines) if (isPrompt(line)) scenario.prompts.add(promptId(line));
    scenario.outputs.push(...child.lines);
  }
}

describe('crash recovery on a durable Redis store', () => {
  let server: Server;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis({ host: '127.0.0.1', port: server.port });
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it(
    `${cite('CRASH-01', 'CRASH-02')} recovers from ${KILLS} SIGKILLs: no lost confirmation, no duplicate or unapproved execution, outcome_unknown never re-run`,
    async () => {
      const reached = new Map<KillPoint, number>();
      for (let k = 0; k < KILLS; k++) {
        const killAt = KILL_POINTS[k % KILL_POINTS.length] as KillPoint;
        const prefix = `crash:${k}:`;
        const scenario: Scenario = {
          prompts: new Set(),
          answered: new Set(),
          outputs: [],
          reachedKillPoint: false,
        };
        await run(server.port, prefix, scenario, killAt);
        if (scenario.reachedKillPoint) reached.set(killAt, (reached.get(killAt) ?? 0) + 1);
        for (let boots = 0; scenario.result === undefined && boots < 2; boots++) {
          await run(server.port, prefix, scenario);
        }
        const where = `kill #${k} at ${killAt}:\n${scenario.outputs.join('\n')}`;
        expect(scenario.result, where).toBeDefined();

        // Never forwarded to the agent: every message the user sent was an answer to a prompt.
        expect(
          scenario.outputs.filter((l) => l.startsWith('INBOUND ')),
          where,
        ).toEqual([]);
        expect(
          scenario.outputs.filter((l) => l.startsWith('ERROR ')),
          where,
        ).toEqual([]);

        const store = createRedisStore({ redis, prefix });
        const decisions = new Map<string, { outcome: string; reason: string; usedAt?: number }>();
        for await (const entry of store.list('confirm:decision:')) {
          // a kernel record (parley.confirm.decision) around the decision
          const value = (
            entry.value as { data: { id: string; outcome: string; reason: string; usedAt?: number } }
          ).data;
          decisions.set(value.id, value);
        }
        const pending: string[] = [];
        for await (const entry of store.list('confirm:pending:')) pending.push(entry.key);
        await store.close();
        // No lost confirmation: every prompt the user saw ended with a recorded decision.
        for (const id of scenario.prompts) expect(decisions.has(id), `${id} ${where}`).toBe(true);
        expect(pending, where).toEqual([]);

        const started = await redis.lrange(`${prefix}executions:started`, 0, -1);
        const finished = await redis.lrange(`${prefix}executions:finished`, 0, -1);
        const used = [...decisions.values()].filter(
          (d) => d.outcome === 'confirmed' && d.usedAt !== undefined,
        );
        // At most one execution, and never without an approval that was recorded and used for it.
        expect(started.length, where).toBeLessThanOrEqual(1);
        expect(used.length, where).toBeGreaterThanOrEqual(started.length);
        const result = scenario.result as NonNullable<Scenario['result']>;
        expect(started, where).toHaveLength(1);
        if (result.failed[0] === 'outcome_unknown') {
          // Cut off mid-way: reported as outcome_unknown on the next boot, and not run again.
          expect(result, where).toEqual({ executed: [], failed: ['outcome_unknown'] });
          expect(finished, where).toHaveLength(0);
        } else {
          // Ran once, here or before the kill (then the next boot replays the recorded outcome).
          expect(result.failed, where).toEqual([]);
          expect(
            result.executed.map((call) => call.id),
            where,
          ).toEqual(['call_1']);
          expect(finished, where).toHaveLength(1);
        }
        if (killAt === 'mid-execution' && scenario.reachedKillPoint)
          expect(result.failed, where).toEqual(['outcome_unknown']);
      }
      // Every kind of kill happened at least once.
      for (const point of KILL_POINTS) expect(reached.get(point) ?? 0, point).toBeGreaterThan(0);
    },
    FULL ? 3_600_000 : 900_000,
  );
});
