import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { createSequentialIds, isParleyError } from '@parley/core';
import { createToolGate, defineTool } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_PROGRESS_INTERVAL_MS, type McpServeOptions, serveToolGate } from '../src/index.js';
import { chat, closedAfterEach, flush, SESSION } from './helpers.js';

const open = closedAfterEach();

const orders = new Map<number, string>();
const ran: number[] = [];
const cancelOrder = defineTool({
  name: 'cancel_order',
  description: 'Cancels an order',
  args: z.object({ order: z.number().int() }),
  reasons: ['unknown_order'],
  confirm: true,
  execute: ({ order }, { reject }) => {
    if (!orders.has(order)) return reject('unknown_order', `There is no order ${order}`);
    ran.push(order);
    orders.set(order, 'cancelled');
    return { order, status: 'cancelled' };
  },
});
const lookup = defineTool({
  name: 'lookup',
  title: 'Look an order up',
  description: 'Reads an order',
  args: z.object({ order: z.number().int() }),
  reasons: [],
  execute: ({ order }) => orders.get(order) ?? 'none',
});

async function setup(more: Partial<McpServeOptions<{ role: string }>> = {}) {
  orders.clear();
  orders.set(7, 'open');
  ran.length = 0;
  const talk = await chat();
  const gate = createToolGate({
    tools: [cancelOrder, lookup],
    allowlist: ['cancel_order', 'lookup'],
    confirm: talk.confirm,
    clock: talk.clock,
    policies: [
      {
        name: 'staff_only',
        tools: ['cancel_order'],
        check: ({ context }: { context: { role: string } }) => context.role === 'staff',
      },
    ],
  });
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  serveToolGate(server, {
    gate,
    tools: [cancelOrder, lookup],
    clock: talk.clock,
    generateId: createSequentialIds('call_'),
    annotations: { cancel_order: { destructiveHint: true }, lookup: { readOnlyHint: true } },
    run: () => ({ ...SESSION, context: { role: 'staff' } }),
    ...more,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientSide);
  open.push(client, talk.confirm);
  return { talk, gate, server, client };
}

describe('serveToolGate', () => {
  it('lists the gate tools with their JSON Schemas and annotations', async () => {
    const { client } = await setup();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations])).toEqual([
      ['cancel_order', { destructiveHint: true }],
      ['lookup', { readOnlyHint: true }],
    ]);
    expect(tools[1]).toMatchObject({
      title: 'Look an order up',
      inputSchema: { type: 'object', required: ['order'] },
    });
  });

  it('runs an allowed call and answers with its result', async () => {
    const { client } = await setup();
    expect(await client.callTool({ name: 'lookup', arguments: { order: 7 } })).toEqual({
      content: [{ type: 'text', text: 'open' }],
    });
  });

  it('answers bad arguments, unknown tools and policy refusals as tool errors with feedback', async () => {
    const { client } = await setup({ run: () => ({ ...SESSION, context: { role: 'guest' } }) });
    const bad = await client.callTool({ name: 'lookup', arguments: { order: 'seven' } });
    const unknown = await client.callTool({ name: 'drop_table' });
    const policy = await client.callTool({ name: 'cancel_order', arguments: { order: 7 } });
    const codes = [bad, unknown, policy].map(
      (result) =>
        (result.structuredContent as { tool_feedback: { failed_calls: { code: string }[] } }).tool_feedback
          .failed_calls[0]?.code,
    );
    expect(codes).toEqual(['invalid_args', 'unknown_tool', 'not_allowed']);
    expect([bad.isError, unknown.isError, policy.isError]).toEqual([true, true, true]);
    expect(ran).toEqual([]);
  });

  it('waits for the person in chat, keeps the client request alive with progress, and runs once', async () => {
    const { client, talk } = await setup();
    const progress: Progress[] = [];
    const prompted = talk.nextPrompt();
    const pending = client.callTool({ name: 'cancel_order', arguments: { order: 7 } }, undefined, {
      onprogress: (event) => progress.push(event),
      resetTimeoutOnProgress: true,
    });
    await prompted;
    talk.clock.advance(DEFAULT_PROGRESS_INTERVAL_MS * 2);
    await flush();
    expect(progress.map((event) => event.progress)).toEqual([1, 2]);
    expect(ran).toEqual([]);
    await talk.channel.say('g1', 'alice', '确认');
    expect((await pending).structuredContent).toEqual({ order: 7, status: 'cancelled' });
    talk.clock.advance(DEFAULT_PROGRESS_INTERVAL_MS * 3);
    await flush();
    expect(progress).toHaveLength(2);
    expect(ran).toEqual([7]);
    expect(talk.clock.pendingTimers()).toBe(0);
  });

  it('aborts the wait when the client cancels the request: nothing runs', async () => {
    const { client, talk } = await setup();
    const prompted = talk.nextPrompt();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'cancel_order', arguments: { order: 7 } }, undefined, {
      signal: controller.signal,
    });
    await prompted;
    const decided = new Promise((resolve) => talk.confirm.on('decided', resolve));
    controller.abort('changed my mind');
    await expect(pending).rejects.toBeDefined();
    expect(await decided).toMatchObject({ decision: { outcome: 'aborted', reason: 'signal' } });
    await talk.channel.say('g1', 'alice', '确认');
    await flush();
    expect(ran).toEqual([]);
    expect(talk.confirm.pending()).toEqual([]);
  });

  it('does not run the call when the person answers after the deadline', async () => {
    const { client, talk } = await setup({
      run: () => ({ ...SESSION, context: { role: 'staff' }, confirmTimeoutMs: 30_000 }),
    });
    const prompted = talk.nextPrompt();
    const pending = client.callTool({ name: 'cancel_order', arguments: { order: 7 } });
    await prompted;
    talk.clock.advance(30_000);
    const result = await pending;
    await talk.channel.say('g1', 'alice', '确认');
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_timed_out' }] },
    });
    expect(ran).toEqual([]);
  });

  it('answers confirmation_failed to the client when the prompt could not be sent: nothing runs', async () => {
    const { client, talk } = await setup();
    talk.channel.failSends(1); // the chat platform refuses the prompt
    const result = await client.callTool({ name: 'cancel_order', arguments: { order: 7 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_failed', status: 'error' }] },
    });
    expect(ran).toEqual([]);
  });

  it('refuses the call when the host cannot say where to ask', async () => {
    const { client } = await setup({
      run: () => {
        throw new Error('no session');
      },
    });
    const result = await client.callTool({ name: 'lookup', arguments: { order: 7 } });
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'policy_error' }] },
    });
  });

  it('serves a low-level Server too, and calls without a run callback', async () => {
    const noop = defineTool({
      name: 'noop',
      description: 'Does nothing',
      args: z.object({}),
      reasons: [],
      execute: () => undefined,
    });
    const gate = createToolGate({ tools: [lookup, noop], allowlist: ['lookup', 'noop'] });
    const server = new Server({ name: 'orders', version: '1.0.0' });
    serveToolGate(server, { gate, tools: [lookup, noop] });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(clientSide);
    open.push(client);
    expect((await client.listTools()).tools[0]).not.toHaveProperty('annotations');
    expect((await client.callTool({ name: 'lookup', arguments: { order: 1 } })).content).toEqual([
      { type: 'text', text: 'none' },
    ]);
    expect(await client.callTool({ name: 'noop' })).toEqual({ content: [{ type: 'text', text: '' }] });
  });

  it('refuses a missing server or gate, a tool the gate lacks and a bad progress interval', () => {
    const gate = createToolGate({ tools: [lookup], allowlist: ['lookup'] });
    const server = () => new McpServer({ name: 'x', version: '1.0.0' });
    const attempts = [
      () => serveToolGate(undefined as never, { gate, tools: [lookup] }),
      () => serveToolGate(server(), undefined as never),
      () => serveToolGate(server(), { gate, tools: [lookup, cancelOrder] }),
      () => serveToolGate(server(), { gate, tools: [lookup], progressIntervalMs: 0 }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
    expect(
      isParleyError(
        (() => {
          try {
            attempts[0]?.();
          } catch (error) {
            return error;
          }
        })(),
        'invalid_argument',
      ),
    ).toBe(true);
  });
});
