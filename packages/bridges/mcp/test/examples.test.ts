// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/mcp, compiled and run; each console.log of an example is an
// assertion here.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { isParleyError } from '@parley/core';
import { createToolGate, defineTool } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnswerElicitationsOptions,
  answerElicitations,
  createMcpClientGate,
  DEFAULT_PROGRESS_INTERVAL_MS,
  ELICITATION_ACTION,
  ELICITATION_REFUSAL_CODES,
  ELICITATION_REFUSAL_META,
  type ElicitationRefusal,
  type ElicitationRoute,
  MCP_BRIDGE_ERROR_CODES,
  McpBridgeError,
  type McpBridgeErrorCode,
  type McpCallOptions,
  type McpClientGate,
  type McpClientGateOptions,
  type McpRequestExtra,
  type McpResumed,
  type McpResumeOptions,
  type McpServeOptions,
  mcpResumeHandlers,
  serveToolGate,
  toRefusalResult,
} from '../src/index.js';

describe('errors.ts examples', () => {
  it('MCP_BRIDGE_ERROR_CODES, McpBridgeErrorCode, McpBridgeError', () => {
    expect(MCP_BRIDGE_ERROR_CODES.includes('invalid_argument')).toBe(true);
    const code: McpBridgeErrorCode = 'invalid_argument';
    const err = new McpBridgeError('invalid_argument', 'client is required');
    expect(isParleyError(err, code)).toBe(true);
  });
});

describe('results.ts examples', () => {
  it('toRefusalResult', () => {
    const result = toRefusalResult({
      id: 'c1',
      tool: 'rm',
      status: 'rejected',
      code: 'unknown_tool',
      reason: 'No tool "rm"',
    });
    expect([result.isError, result.content[0]]).toEqual([true, { type: 'text', text: 'No tool "rm"' }]);
  });
});

describe('client.ts examples', () => {
  it('types', () => {
    const options: McpClientGateOptions = {
      client: new Client({ name: 'bot', version: '1.0.0' }),
      allow: ['search'],
    };
    const call: McpCallOptions = {
      sessionKey: 'feishu:oc_1',
      requester: 'ou_alice',
      callId: 'call_7',
      turn: 3,
    };
    const names = (bridge: McpClientGate): string[] => bridge.tools.map((tool) => tool.name);
    expect(options.allow).toEqual(['search']);
  });

  it('createMcpClientGate', async () => {
    const server = new McpServer({ name: 'files', version: '1.0.0' });
    server.registerTool(
      'read_file',
      { description: 'Reads a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
      ({ path }) => ({ content: [{ type: 'text', text: `contents of ${path}` }] }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'bot', version: '1.0.0' });
    await client.connect(clientSide);

    const bridge = await createMcpClientGate({ client });
    const ok = await bridge.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
    expect(ok.content).toEqual([{ type: 'text', text: 'contents of a.txt' }]);
    const bad = await bridge.callTool({ name: 'read_file', arguments: { file: 'a.txt' } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'invalid_args' }] },
    });
    await client.close();
  });
});

describe('resume.ts examples', () => {
  it('types', () => {
    const log = (event: McpResumed): string => (event.ran ? 'ran' : `not run: ${event.code}`);
    const options: McpResumeOptions<{ frozen: boolean }> = {
      policies: [
        {
          name: 'freeze',
          check: ({ context }) => (context.frozen ? { message: 'Changes are frozen' } : undefined),
        },
      ],
      context: () => ({ frozen: false }),
      onResumed: (event) => console.log(event.ran),
    };
    expect(typeof options.onResumed).toBe('function');
    expect(options.policies).toHaveLength(1);
  });

  it('mcpResumeHandlers', async () => {
    const client = new Client({ name: 'bot', version: '1.0.0' });
    const resume = mcpResumeHandlers(client, ['delete_file'], {
      onResumed: (event) => console.log(event.ran),
    });
    const confirm = createConfirmGate({ bus: createMessageBus(), resume });
    expect(Object.keys(resume)).toEqual(['delete_file']);
    await confirm.close();
  });
});

describe('server.ts examples', () => {
  it('DEFAULT_PROGRESS_INTERVAL_MS and types', () => {
    expect(DEFAULT_PROGRESS_INTERVAL_MS).toBe(10_000);
    const who = (extra: McpRequestExtra): string | undefined => extra.authInfo?.clientId;
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      reasons: [],
      execute: () => 'pong',
    });
    const options: McpServeOptions = {
      gate: createToolGate({ tools: [ping], allowlist: ['ping'] }),
      tools: [ping],
    };
    expect(options.tools).toHaveLength(1);
  });

  it('serveToolGate', async () => {
    const add = defineTool({
      name: 'add',
      description: 'Adds two numbers',
      args: z.object({ a: z.number(), b: z.number() }),
      reasons: [],
      execute: ({ a, b }) => ({ sum: a + b }),
    });
    const server = new McpServer({ name: 'calc', version: '1.0.0' });
    serveToolGate(server, { gate: createToolGate({ tools: [add], allowlist: ['add'] }), tools: [add] });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(clientSide);
    expect((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({
      sum: 3,
    });
    expect((await client.callTool({ name: 'add', arguments: { a: 'x' } })).isError).toBe(true);
    await client.close();
  });
});

describe('elicit.ts examples', () => {
  it('ELICITATION_ACTION and types', async () => {
    expect(ELICITATION_ACTION).toBe('mcp.elicitation');
    expect(ELICITATION_REFUSAL_CODES).toEqual(['url_mode', 'unfillable_form', 'no_route']);
    expect(ELICITATION_REFUSAL_META).toBe('dev.parley/refusal');
    const why = 'URL elicitations are not answered in chat';
    const refusal: ElicitationRefusal = { code: 'url_mode', message: why, reason: why, request: 'Sign in' };
    expect(refusal.code).toBe('url_mode');
    const route: ElicitationRoute = { sessionKey: 'feishu:oc_1', requester: 'ou_alice' };
    const options: AnswerElicitationsOptions = {
      confirm: createConfirmGate({ bus: createMessageBus() }),
      route: { sessionKey: 'feishu:oc_1', requester: 'ou_alice' },
      timeoutMs: 120_000,
    };
    expect(options.timeoutMs).toBe(120_000);
    await options.confirm.close();
  });

  it('answerElicitations', async () => {
    const client = new Client(
      { name: 'bot', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const confirm = createConfirmGate({ bus: createMessageBus() });
    answerElicitations(client, { confirm, route: { sessionKey: 'feishu:oc_1', requester: 'ou_alice' } });
    await confirm.close();
  });
});
