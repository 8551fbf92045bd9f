// Faults against a real Restate server: the app killed between decision and effect, the server
// restarted mid-wait, two replies racing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReceiveResult } from '@parley/correlate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineRunResult, RequestRecord } from '../src/index.js';
import { type App, startApp } from './apps.js';
import { call, outputOf as attached, send } from './endpoint.js';
import { http } from './http.js';
import { freePorts, type RestateServer, startRestate, waitFor } from './server.js';
import { openShutdown, responseTo } from './services.js';

let server: RestateServer;
let dir: string;
const apps: App[] = [];

beforeAll(async () => {
  server = await startRestate();
  dir = mkdtempSync(join(tmpdir(), 'parley-restate-faults-'));
});
afterAll(async () => {
  for (const app of apps) await app.kill();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function app(port: number, env: Record<string, string> = {}): Promise<App> {
  const started = await startApp(port, env);
  apps.push(started);
  return started;
}

const open = (id: string, timeoutMs = 60_000): Promise<unknown> =>
  openShutdown(server.ingressUrl, id, timeoutMs);
const reply = (id: string, response: unknown): Promise<ReceiveResult> =>
  call(server.ingressUrl, `requests/${id}/reply`, responseTo(id, { response }));

const outputOf = (invocationId: string): Promise<unknown> => attached(server.ingressUrl, invocationId);

describe('the app process killed', () => {
  it('finishes a decided request’s effect exactly once on the other process when the first dies between decision and effect', async () => {
    const [port] = await freePorts(1);
    const effectLog = join(dir, 'effects-1.log');
    const first = await app(port as number, { CRASH_IN_EFFECT: '1', EFFECT_LOG: effectLog });
    await server.register(first.url);
    const id = 'kill-1';
    await open(id);
    const invocation = await send(server.ingressUrl, 'lead/shutdown', id);
    await waitFor('the lead to wait on the request', 20_000, async () => {
      return (await server.state('requests', id, 'watchers')) !== undefined;
    });
    expect(await reply(id, { approve: true })).toMatchObject({ ok: true, state: 'approved' });
    expect(await first.exited).toBeNull(); // killed by SIGKILL inside the effect
    await app(port as number, { EFFECT_LOG: effectLog }); // the second process, behind the same server
    expect(await outputOf(invocation)).toBe('shut down');
    const lines = readFileSync(effectLog, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(String(first.pid));
  });
});

describe('the app process killed between a confirmation’s decision and its action', () => {
  it('runs the authorized action once, on the other process', async () => {
    const [port] = await freePorts(1);
    const effectLog = join(dir, 'effects-confirm.log');
    const first = await app(port as number, { CRASH_IN_EFFECT: '1', EFFECT_LOG: effectLog });
    await server.register(first.url);
    const sessionKey = 'chat:kill';
    const input = { sessionKey, id: 'c1', requester: 'alice', env: 'prod' };
    const invocation = await send(server.ingressUrl, 'tool/deploy', input);
    await waitFor('the tool to wait on its confirmation', 20_000, async () => {
      const state = (await server.state('confirmations', sessionKey, 'session')) as
        | { watchers: Record<string, string[]> }
        | undefined;
      return (state?.watchers.c1 ?? []).length > 0;
    });
    const answered = await call(server.ingressUrl, `confirmations/${sessionKey}/reply`, {
      text: '确认',
      senderId: 'alice',
    });
    expect(answered).toMatchObject({ id: 'c1', verdict: { outcome: 'confirmed' } });
    expect(await first.exited).toBeNull(); // killed by SIGKILL inside the action, after authorize
    await app(port as number, { EFFECT_LOG: effectLog }); // the second process, behind the same server
    expect(await outputOf(invocation)).toBe('deployed');
    const lines = readFileSync(effectLog, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(String(first.pid));
    expect(await server.state('confirmations', sessionKey, 'decision:c1')).toMatchObject({
      usedAt: expect.any(Number),
    });
  });
});

describe('the app process killed while a pipeline node runs', () => {
  it('finishes the run on the other process and journals the node’s result once', async () => {
    const [port] = await freePorts(1);
    const workLog = join(dir, 'work.log');
    const first = await app(port as number, { CRASH_IN_WORK: '1', WORK_LOG: workLog });
    await server.register(first.url);
    const run = await send(server.ingressUrl, 'job/run-kill/run', null);
    expect(await first.exited).toBeNull(); // killed by SIGKILL inside the node's work
    const second = await app(port as number, { WORK_LOG: workLog });
    const answer = await http('GET', `${server.ingressUrl}/restate/invocation/${run}/attach`);
    const result = JSON.parse(answer.text) as PipelineRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.nodes.build).toMatchObject({
      status: 'done',
      attempts: 1,
      output: { built: true, pid: second.pid },
    });
    // The attempt that died had no journaled result, so it ran again (at least once), on the survivor.
    expect(readFileSync(workLog, 'utf8').trim().split('\n')).toEqual([
      `build ${first.pid}`,
      `build ${second.pid}`,
    ]);
  });
});

describe('the Restate server restarted', () => {
  it('keeps a pending wait and its decision across a server restart', async () => {
    const [port] = await freePorts(1);
    const effectLog = join(dir, 'effects-2.log');
    const only = await app(port as number, { EFFECT_LOG: effectLog });
    await server.register(only.url);
    const id = 'restart-1';
    await open(id);
    const invocation = await send(server.ingressUrl, 'lead/shutdown', id);
    await server.restart();
    expect(await call<RequestRecord>(server.ingressUrl, `requests/${id}/get`)).toMatchObject({
      state: 'pending',
    });
    expect(await reply(id, { approve: true })).toMatchObject({ ok: true, state: 'approved' });
    expect(await outputOf(invocation)).toBe('shut down');
    expect(readFileSync(effectLog, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('fires a request’s deadline timer after a server restart', async () => {
    const [port] = await freePorts(1);
    await server.register((await app(port as number)).url);
    const id = 'restart-2';
    await open(id, 1_500);
    await server.restart();
    await waitFor(`request ${id} to expire after the restart`, 20_000, async () => {
      return (await call<RequestRecord>(server.ingressUrl, `requests/${id}/get`)).state === 'expired';
    });
    expect(await reply(id, { approve: true })).toMatchObject({ ok: false, code: 'late' });
  });
});

describe('two replies racing', () => {
  it('settles a request with exactly one of two replies sent at once and refuses the other as a duplicate', async () => {
    const [port] = await freePorts(1);
    await server.register((await app(port as number)).url);
    const id = 'race-1';
    await open(id);
    const results = await Promise.all([
      reply(id, { approve: true }),
      reply(id, { approve: false, reason: 'no' }),
    ]);
    const winners = results.filter((r) => r.ok);
    const losers = results.filter((r) => !r.ok);
    expect(winners).toHaveLength(1);
    expect(losers).toMatchObject([{ code: 'duplicate' }]);
    const record = await call<RequestRecord>(server.ingressUrl, `requests/${id}/get`);
    expect(record.state).toBe(winners[0]?.ok === true ? winners[0].state : undefined);
  });
});
