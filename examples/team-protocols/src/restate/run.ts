// `--engine restate`: the team's request/response protocols on a real Restate server. The server
// comes from node_modules (@restatedev/restate-server); two app processes serve the requests object
// and the lead behind one address. The scenarios are the scripted run's, on Restate's durable
// timers and journal instead of the fake clock; the last kills the app process the lead's wait runs
// on, and the other replica finishes it exactly once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isParleyError } from '@parley/core';
import type { RequestRecord } from '@parley/restate';
import { freeLoopbackPorts, startRestateServer } from '@parley/restate/testing';
import { type Replica, startFront, startReplica } from './processes.js';

export interface RestateRunResult {
  readonly lines: readonly string[];
  /** Why the run did not happen (no server binary for this platform), or undefined. */
  readonly skipped?: string;
}

export async function runOnRestate(
  options: { readonly output?: (line: string) => void } = {},
): Promise<RestateRunResult> {
  const lines: string[] = [];
  const log = (line: string): void => {
    lines.push(line);
    options.output?.(line);
  };
  let server: Awaited<ReturnType<typeof startRestateServer>>;
  try {
    server = await startRestateServer();
  } catch (error) {
    if (!isParleyError(error, 'server_missing')) throw error;
    log(`skipped: ${error.message}`);
    return { lines, skipped: error.message };
  }
  const dir = mkdtempSync(join(tmpdir(), 'team-protocols-restate-'));
  const effectLog = join(dir, 'effects.log');
  const replicas: Replica[] = [];
  let front: { close(): Promise<void> } | undefined;
  try {
    const [frontPort, portA, portB] = (await freeLoopbackPorts(3)) as [number, number, number];
    replicas.push(await startReplica('A', portA, effectLog), await startReplica('B', portB, effectLog));
    front = await startFront(frontPort, [portA, portB]);
    await server.register(`http://127.0.0.1:${frontPort}`);
    log(
      `restate-server up (ingress ${server.ingressUrl}); app A pid ${replicas[0]?.pid} and app B pid ${replicas[1]?.pid} behind one address`,
    );
    const ingress = (path: string, body: unknown): Promise<unknown> =>
      post(`${server.ingressUrl}/${path}`, body);
    const open = (
      id: string,
      from: string,
      to: string,
      protocol: string,
      payload: unknown,
      timeoutMs = 60_000,
    ) => ingress(`requests/${id}/open`, { protocol, from, to, payload, timeoutMs });
    const reply = (id: string, protocol: string, from: string, to: string, response: unknown) =>
      ingress(`requests/${id}/reply`, { kind: 'response', request_id: id, protocol, from, to, response });
    const lead = (id: string): Promise<string> =>
      post(`${server.ingressUrl}/lead/shutdown/send`, id).then(
        (sent) => (sent as { invocationId: string }).invocationId,
      );
    const result = (invocation: string): Promise<unknown> =>
      get(`${server.ingressUrl}/restate/invocation/${invocation}/attach`);
    const show = (what: unknown): string => JSON.stringify(what);

    log('\n━━ 1. shutdown-approved');
    await open('req_1', 'lead', 'alice', 'shutdown', {
      reason: 'the export endpoint is merged; please shut down',
    });
    const first = await lead('req_1');
    log(`alice answers req_1: ${show(await reply('req_1', 'shutdown', 'alice', 'lead', { approve: true }))}`);
    log(`the lead's wait on req_1 ends: ${show(await result(first))}`);

    log('\n━━ 2. shutdown-refused');
    await open('req_2', 'lead', 'carol', 'shutdown', { reason: 'we are wrapping up for today' });
    const second = await lead('req_2');
    const refusal = { approve: false, reason: 'mid-migration: config.json is half written' };
    log(`carol answers req_2: ${show(await reply('req_2', 'shutdown', 'carol', 'lead', refusal))}`);
    log(`the lead's wait on req_2 ends: ${show(await result(second))}`);

    log('\n━━ 3. never-answers (a durable timer of 1.5 s)');
    await open('req_3', 'lead', 'dave', 'shutdown', { reason: 'end of sprint' }, 1_500);
    log(`the lead's wait on req_3 ends: ${show(await result(await lead('req_3')))}`);

    log('\n━━ 4. plan-review');
    await open('req_4', 'bob', 'lead', 'plan_approval', {
      plan: 'drop legacy_tokens and migrate to auth_v2',
    });
    log(
      `the lead rejects req_4: ${show(await reply('req_4', 'plan_approval', 'lead', 'bob', { approve: false, reason: 'stage it behind a flag' }))}`,
    );
    await open('req_5', 'bob', 'lead', 'plan_approval', {
      plan: 'stage 1: auth_v2 behind a flag',
      reason: 'revises req_4',
    });
    log(
      `the lead approves req_5: ${show(await reply('req_5', 'plan_approval', 'lead', 'bob', { approve: true }))}`,
    );

    log('\n━━ 5. late-and-wrong-replies');
    await open('req_6', 'lead', 'erin', 'shutdown', { reason: 'rotation' }, 1_500);
    const sixth = await lead('req_6');
    log(
      `carol answers erin's req_6: ${show(await reply('req_6', 'shutdown', 'carol', 'lead', { approve: true }))}`,
    );
    log(`the lead's wait on req_6 ends: ${show(await result(sixth))}`);
    log(
      `erin's answer arrives after the deadline: ${show(await reply('req_6', 'shutdown', 'erin', 'lead', { approve: true }))}`,
    );

    log('\n━━ 6. failover: app A is killed while the lead waits; app B finishes it once');
    await open('req_7', 'lead', 'bob', 'shutdown', { reason: 'the auth work is merged' });
    const seventh = await lead('req_7');
    for (let i = 0; (await server.state('requests', 'req_7', 'watchers')) === undefined; i++) {
      if (i > 400) throw new Error('the lead never registered its wait on req_7 (waited 10 s)');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await replicas[0]?.kill();
    log(`app A (pid ${replicas[0]?.pid}) killed with SIGKILL while the lead waited on req_7`);
    log(`bob answers req_7: ${show(await reply('req_7', 'shutdown', 'bob', 'lead', { approve: true }))}`);
    log(`the lead's wait on req_7 ends: ${show(await result(seventh))}`);
    const effects = readFileSync(effectLog, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('req_7 '));
    const by = effects.map((l) => (l.endsWith(` ${replicas[1]?.pid}`) ? 'app B' : 'app A'));
    log(`bob taken off the roster ${effects.length} time(s), by ${by.join(', ')}`);
    const record = (await post(`${server.ingressUrl}/requests/req_7/get`, null)) as RequestRecord;
    log(`req_7 is ${record.state}`);
    return { lines };
  } finally {
    for (const replica of replicas) await replica.kill();
    await front?.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function post(url: string, body: unknown): Promise<unknown> {
  return send('POST', url, body);
}

function get(url: string): Promise<unknown> {
  return send('GET', url, undefined);
}

/** One HTTP/1.1 call to the server; the JSON answer, or an error naming the status and body. */
function send(method: 'GET' | 'POST', url: string, body: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      { method, agent: false, headers: payload === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          (res.statusCode ?? 0) < 300
            ? resolve(text === '' ? null : JSON.parse(text))
            : reject(new Error(`${method} ${url} answered ${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
