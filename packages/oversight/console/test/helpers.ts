// A console on a loopback port over a memory store (or any store), and fixtures that write the
// records the gates, runners, ledgers and kernel claims write, through their own public APIs.
import { createMessageBus } from '@parley/bus';
import {
  CONFIRMATION_RECORD,
  type ConfirmGate,
  createConfirmation,
  createConfirmGate,
} from '@parley/confirm';
import {
  createKernel,
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type JsonValue,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createFakeChannel, createFakePlatformOrder, type FakeChannel } from '@parley/testing';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterEach } from 'vitest';
import { type RunningConsole, type StartConsoleOptions, startConsole } from '../src/index.js';

export const NOW = 1_700_000_000_000;

/** Consoles started by a test, closed after it. */
const running: RunningConsole[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
});

export interface Served {
  readonly url: string;
  /** GETs a path (or another method) and answers status, headers and body text. */
  get(path: string, init?: Request): Promise<Response>;
  /** GETs the JSON variant of a path. */
  json<T = Record<string, unknown>>(path: string): Promise<T>;
}

export async function serve(options: Partial<StartConsoleOptions> & { store: Store }): Promise<Served> {
  const started = await startConsole({ refreshSeconds: 0, ...options });
  running.push(started);
  const base = started.url.replace(/\/$/, '');
  const get: Served['get'] = (path, init) => request(`${base}${path}`, init);
  return {
    url: started.url,
    get,
    async json<T>(path: string): Promise<T> {
      const sep = path.includes('?') ? '&' : '?';
      return JSON.parse((await get(`${path}${sep}format=json`)).text) as T;
    },
  };
}

export function memory(): { clock: ManualClock; store: Store } {
  const clock = createManualClock({ now: NOW });
  return { clock, store: createMemoryStore({ clock }) };
}

/** Writes a pending confirmation the way a gate stores it (a kernel record), with any summary and chat. */
export async function putPending(
  store: Store,
  clock: ManualClock,
  request: {
    id: string;
    sessionKey?: string;
    summary?: string;
    requester?: string;
    args?: JsonValue;
    delivered?: boolean;
    timeoutMs?: number;
  },
): Promise<void> {
  const made = createConfirmation(
    {
      sessionKey: 'feishu:g1',
      action: { name: 'sql.delete', args: request.args ?? { sql: 'DELETE FROM orders' } },
      summary: 'Delete the orders',
      requester: 'alice',
    },
    {
      id: request.id,
      now: clock.now(),
      ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    },
  );
  const record = {
    ...made.record,
    ...(request.sessionKey === undefined ? {} : { sessionKey: request.sessionKey }),
    ...(request.summary === undefined ? {} : { summary: request.summary }),
    ...(request.requester === undefined ? {} : { requester: request.requester }),
    firstPromptedAt: clock.now(),
    promptedAt: clock.now(),
    ...(request.delivered === false ? {} : { deliveredAt: clock.now() }),
    expiresAt: clock.now() + made.record.timeoutMs,
  };
  const kernel = createKernel({ store, clock });
  const done = await kernel.apply(
    `confirm:pending:${request.id}`,
    CONFIRMATION_RECORD,
    () => ({ value: record, effects: [], deadlineAt: record.expiresAt + 60_000 }),
    null,
  );
  if (!done.ok) throw new Error(done.message);
}

/** A confirm gate on a fake Feishu channel over `store`, asking in chat g1 for alice. */
export async function gateOn(
  store: Store,
  clock: ManualClock,
): Promise<{
  gate: ConfirmGate;
  channel: FakeChannel;
  ask(summary: string): Promise<{ decision: Promise<unknown> }>;
}> {
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock, order: createFakePlatformOrder() });
  await bus.attach(channel);
  const gate = createConfirmGate({ bus, clock, store, generateId: createSequentialIds('cfm_') });
  await gate.ready;
  return {
    gate,
    channel,
    async ask(summary) {
      const prompted = new Promise((resolve) => gate.on('prompted', resolve));
      const decision = gate.request({
        sessionKey: 'feishu:g1',
        action: { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } },
        summary,
        requester: 'alice',
      });
      await prompted;
      return { decision };
    },
  };
}

/** What a test request may set. */
export interface Request {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An answer: status, headers (names in lower case) and body text. */
export interface Response {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly text: string;
}

/** One HTTP request over node:http (no fetch: its abort listeners outlive a test). */
export function request(url: string, init: Request = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers: IncomingHttpHeaders = res.headers;
        resolve({
          status: res.statusCode ?? 0,
          headers: { get: (name) => String(headers[name.toLowerCase()] ?? '') || null },
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
