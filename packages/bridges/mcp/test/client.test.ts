import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createMcpClientGate } from '../src/index.js';
import { chat, closedAfterEach, connect, fileServer, SESSION } from './helpers.js';

const open = closedAfterEach();

async function setup(
  more: Parameters<typeof createMcpClientGate>[0] extends infer O ? Partial<O> : never = {},
) {
  const files = fileServer();
  const client = await connect(files.server);
  const talk = await chat();
  open.push(client, talk.confirm);
  const bridge = await createMcpClientGate({
    client,
    confirm: talk.confirm,
    clock: talk.clock,
    store: talk.store,
    ...more,
  });
  return { files, client, talk, bridge };
}

describe('createMcpClientGate', () => {
  it('lists the server tools Parley can name and leaves the others out', async () => {
    const { bridge } = await setup();
    expect(bridge.tools.map((tool) => tool.name)).toEqual(['read_file', 'delete_file', 'touch']);
    expect(bridge.skipped).toEqual(['fs.stat']);
    expect(bridge.gate.names).toEqual(['read_file', 'delete_file', 'touch']);
  });

  it('runs a read-only tool at once and returns the server result', async () => {
    const { bridge, files, talk } = await setup();
    const result = await bridge.callTool({ name: 'read_file', arguments: { path: 'a.txt' } }, SESSION);
    expect(result).toEqual({ content: [{ type: 'text', text: 'alpha' }] });
    expect(files.calls).toEqual([{ tool: 'read_file', args: { path: 'a.txt' } }]);
    expect(talk.channel.sent).toEqual([]);
  });

  it('runs a destructive tool once the person confirms in chat, with the arguments confirmed', async () => {
    const { bridge, files, talk } = await setup();
    const prompted = talk.nextPrompt();
    const pending = bridge.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } }, SESSION);
    await prompted;
    expect(files.calls).toEqual([]);
    expect(talk.channel.lastSent('g1')?.text).toContain('delete_file');
    await talk.channel.say('g1', 'alice', '确认');
    expect(await pending).toEqual({ content: [{ type: 'text', text: 'deleted a.txt' }] });
    expect(files.calls).toEqual([{ tool: 'delete_file', args: { path: 'a.txt' } }]);
  });

  it('asks for an unannotated tool too (the specification presumes it destructive)', async () => {
    const { bridge, files, talk } = await setup();
    const prompted = talk.nextPrompt();
    const pending = bridge.callTool({ name: 'touch', arguments: { path: 'c.txt' } }, SESSION);
    await prompted;
    await talk.channel.say('g1', 'alice', '取消');
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_declined', tool: 'touch' }] },
    });
    expect(files.calls).toEqual([]);
  });

  it('runs a call id at most once per turn: the same call again replays the result', async () => {
    const { bridge, files, talk } = await setup();
    const prompted = talk.nextPrompt();
    const call = { ...SESSION, callId: 'call_1', turn: 4 };
    const first = bridge.callTool({ name: 'delete_file', arguments: { path: 'b.txt' } }, call);
    await prompted;
    await talk.channel.say('g1', 'alice', '确认');
    await first;
    const again = await bridge.callTool({ name: 'delete_file', arguments: { path: 'b.txt' } }, call);
    expect(again).toEqual(await first);
    const other = await bridge.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } }, call);
    expect(other.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'call_id_reused' }] },
    });
    expect(files.calls).toHaveLength(1);
  });

  it('refuses arguments that break the tool schema as feedback, without calling the server', async () => {
    const { bridge, files } = await setup();
    const result = await bridge.callTool({ name: 'read_file', arguments: { file: 'a.txt' } }, SESSION);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'invalid_args', status: 'rejected' }] },
    });
    expect(files.calls).toEqual([]);
  });

  it('refuses a tool outside the allowlist as unknown, naming the allowed ones', async () => {
    const { bridge, files } = await setup({ allow: ['read_file'] });
    const result = await bridge.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } }, SESSION);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('read_file') }]);
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'unknown_tool' }] },
    });
    expect(files.calls).toEqual([]);
  });

  it('refuses a call a policy forbids, with the policy reason', async () => {
    const { bridge } = await setup({
      policies: [
        {
          name: 'no_b',
          check: ({ args }) =>
            (args as { path: string }).path === 'b.txt' ? { reason: 'b.txt is protected' } : undefined,
        },
      ],
    });
    const result = await bridge.callTool({ name: 'read_file', arguments: { path: 'b.txt' } });
    expect(result.content).toEqual([{ type: 'text', text: 'b.txt is protected' }]);
  });

  it('takes the host decision on what needs confirmation', async () => {
    const { bridge, files } = await setup({ needsConfirmation: (tool) => tool.name === 'read_file' });
    const result = await bridge.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } });
    expect(result.isError).toBeUndefined();
    const refused = await bridge.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
    expect(refused.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_unavailable' }] },
    });
    expect(files.calls.map((call) => call.tool)).toEqual(['delete_file']);
  });

  it('does not run the tool when the answer comes after the deadline', async () => {
    const { bridge, files, talk } = await setup();
    const prompted = talk.nextPrompt();
    const pending = bridge.callTool(
      { name: 'delete_file', arguments: { path: 'a.txt' } },
      { ...SESSION, confirmTimeoutMs: 60_000 },
    );
    await prompted;
    talk.clock.advance(60_000);
    const result = await pending;
    await talk.channel.say('g1', 'alice', '确认');
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_timed_out' }] },
    });
    expect(files.calls).toEqual([]);
    expect(files.files.has('a.txt')).toBe(true);
  });

  it('reports a prompt that could not be sent as confirmation_failed, not as a decline', async () => {
    const { bridge, files, talk } = await setup();
    talk.channel.failSends(1); // the chat platform refuses the prompt
    const result = await bridge.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } }, SESSION);
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_failed', status: 'error' }] },
    });
    expect(JSON.stringify(result.content)).not.toContain('did not confirm');
    expect(files.calls).toEqual([]);
  });

  it('reports a call the transport could not make as an executor error', async () => {
    const { bridge, client } = await setup();
    await client.close();
    const result = await bridge.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'executor_error', status: 'error' }] },
    });
  });

  it('reads every page of the tool list', async () => {
    const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
    const page = (name: string) => ({
      name,
      description: name,
      inputSchema: { type: 'object' as const },
      annotations: { readOnlyHint: true },
    });
    const broken = {
      ...page('broken'),
      inputSchema: { type: 'object' as const, properties: { x: { type: 'bogus' } } },
    };
    server.setRequestHandler(ListToolsRequestSchema, (request) =>
      request.params?.cursor === undefined
        ? { tools: [page('one')], nextCursor: 'p2' }
        : { tools: [page('two'), broken] },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'bot', version: '1.0.0' });
    await client.connect(clientSide);
    open.push(client);
    const bridge = await createMcpClientGate({ client, generateId: () => 'fixed' });
    expect(bridge.tools.map((tool) => tool.name)).toEqual(['one', 'two', 'broken']);
    const result = await bridge.callTool({ name: 'broken', arguments: { x: 1 } });
    expect(result.structuredContent).toMatchObject({
      tool_feedback: {
        failed_calls: [
          {
            code: 'invalid_args',
            issues: [{ message: expect.stringContaining('input schema cannot be used') }],
          },
        ],
      },
    });
  });

  it('passes the call signal to the server request and takes a call without arguments', async () => {
    const { bridge, files } = await setup({ storePrefix: 'bot:tools:', needsConfirmation: () => false });
    const controller = new AbortController();
    files.onRead = () => controller.abort('the user left');
    const result = await bridge.callTool(
      { name: 'read_file', arguments: { path: 'b.txt' } },
      { signal: controller.signal },
    );
    expect(result.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'executor_error' }] },
    });
    const bare = await bridge.callTool({ name: 'touch' });
    expect(bare.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'invalid_args' }] },
    });
    expect(files.calls).toHaveLength(1);
  });

  it('refuses a missing client and an allowlist naming a tool the server lacks', async () => {
    const { client } = await setup();
    await expect(createMcpClientGate({ client: undefined as never })).rejects.toSatisfy((error) =>
      isParleyError(error, 'invalid_argument'),
    );
    await expect(createMcpClientGate({ client, allow: ['fs.stat'] })).rejects.toSatisfy((error) =>
      isParleyError(error, 'invalid_argument'),
    );
  });
});
