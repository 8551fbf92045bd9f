import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMessageBus, type MessageBus } from '@parley/bus';
import {
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  createConfirmGate,
} from '@parley/confirm';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { z } from 'zod';

/** A file server: read_file is read-only, delete_file destructive, touch unannotated. */
export interface Files {
  readonly server: McpServer;
  readonly files: Map<string, string>;
  /** Every call the server's handlers received, in order. */
  readonly calls: { tool: string; args: unknown }[];
  /** Runs inside read_file, while the request is in flight. */
  onRead: () => void;
}

export function fileServer(): Files {
  const files = new Map([
    ['a.txt', 'alpha'],
    ['b.txt', 'beta'],
  ]);
  const calls: Files['calls'] = [];
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  const result: Files = { server, files, calls, onRead: () => {} };
  server.registerTool(
    'read_file',
    { description: 'Reads a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
    ({ path }) => {
      calls.push({ tool: 'read_file', args: { path } });
      result.onRead();
      return { content: [{ type: 'text', text: files.get(path) ?? '' }] };
    },
  );
  server.registerTool(
    'delete_file',
    {
      title: 'Delete a file',
      description: 'Deletes a file',
      inputSchema: { path: z.string() },
      annotations: { destructiveHint: true },
    },
    ({ path }) => {
      calls.push({ tool: 'delete_file', args: { path } });
      const existed = files.delete(path);
      return { content: [{ type: 'text', text: existed ? `deleted ${path}` : `no ${path}` }] };
    },
  );
  server.registerTool('touch', { description: '', inputSchema: { path: z.string() } }, ({ path }) => {
    calls.push({ tool: 'touch', args: { path } });
    files.set(path, '');
    return { content: [{ type: 'text', text: `touched ${path}` }] };
  });
  server.registerTool(
    'fs.stat',
    { description: 'Stats a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
    () => ({ content: [] }),
  );
  return result;
}

/** A real client linked to `server` over the SDK's in-memory transport. */
export async function connect(
  server: McpServer,
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bot', version: '1.0.0' }, capabilities);
  await client.connect(clientSide);
  return client;
}

export interface Chat {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly confirm: ConfirmGate;
  /** Resolves with the next prompt the gate sent. */
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
  /** A new confirm gate over the same store and clock, on a new bus and chat: a restart. */
  restart(options?: Partial<ConfirmGateOptions>): Promise<Chat>;
}

export const SESSION = { sessionKey: 'feishu:g1', requester: 'alice' } as const;

export async function chat(
  options: Partial<ConfirmGateOptions> = {},
  shared?: { clock: ManualClock; store: Store },
): Promise<Chat> {
  const clock = shared?.clock ?? createManualClock({ now: 1_000_000 });
  const store = shared?.store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock });
  await bus.attach(channel);
  const confirm = createConfirmGate({
    bus,
    clock,
    store,
    generateId: createSequentialIds(shared === undefined ? 'cfm_' : 'cfm_r'),
    ...options,
  });
  await confirm.ready;
  return {
    clock,
    store,
    bus,
    channel,
    confirm,
    nextPrompt: () =>
      new Promise((resolve) => {
        const off = confirm.on('prompted', (event) => {
          off();
          resolve(event);
        });
      }),
    restart: (more = {}) => chat(more, { clock, store }),
  };
}

/** Lets pending promise callbacks run (no timers involved). */
export async function flush(times = 20): Promise<void> {
  for (let i = 0; i < times; i++) await Promise.resolve();
}
