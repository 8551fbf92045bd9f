import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { ConfirmGate } from '@parley/confirm';
import { type Clock, generateId, type IdGenerator, type Store } from '@parley/core';
import {
  type AnyToolDefinition,
  createToolGate,
  defineTool,
  type ToolConfirmFn,
  type ToolGate,
  type ToolPolicy,
} from '@parley/tools';
import { McpBridgeError } from './errors.js';
import { isDestructive, MAX_LIST_PAGES, runTurn, TOOL_NAME } from './internal.js';
import { jsonSchemaArgs } from './schema.js';

/**
 * Options for {@link createMcpClientGate}.
 *
 * @example
 * ```ts
 * import type { McpClientGateOptions } from '@parley/mcp';
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 *
 * const options: McpClientGateOptions = { client: new Client({ name: 'bot', version: '1.0.0' }), allow: ['search'] };
 * ```
 */
export interface McpClientGateOptions<TContext = undefined> {
  /** A connected MCP client; its server's tools are listed once, when the gate is made. */
  readonly client: Client;
  /** The server tools the model may call; every listed tool Parley can name by default. */
  readonly allow?: readonly string[];
  /**
   * Who confirms a call that needs it: a `@parley/confirm` gate (asked in the chat of the call's
   * `sessionKey`, bound to the exact arguments) or a function. Required when a tool needs it.
   */
  readonly confirm?: ConfirmGate | ToolConfirmFn<TContext>;
  /**
   * Whether a call needs a person's confirmation. By default the MCP annotations decide, with the
   * specification's defaults: a tool needs it unless it says `readOnlyHint: true` or
   * `destructiveHint: false` (annotations are hints from the server, so an unannotated tool counts
   * as destructive).
   */
  readonly needsConfirmation?: (tool: Tool, args: Readonly<Record<string, unknown>>) => boolean;
  /** State-dependent rules over the calls (see `@parley/tools`), checked after the arguments. */
  readonly policies?: readonly ToolPolicy<TContext>[];
  /** Remembers which call ids ran (and their results), across restarts and replicas. */
  readonly store?: Store;
  readonly storePrefix?: string;
  readonly clock?: Clock;
  /** Makes call ids for calls given none; nanoid by default. */
  readonly generateId?: IdGenerator;
  /** Passed to every `client.callTool` (timeout, `resetTimeoutOnProgress`…). */
  readonly requestOptions?: RequestOptions;
  /** Checks arguments against each tool's `inputSchema`; the SDK's Ajv validator by default. */
  readonly validator?: jsonSchemaValidator;
}

/**
 * How one call is made: the chat and person a confirmation is asked of, the host's context for
 * policies, and optionally the model's call id and the turn (to run each id at most once).
 *
 * @example
 * ```ts
 * import type { McpCallOptions } from '@parley/mcp';
 *
 * const options: McpCallOptions = { sessionKey: 'feishu:oc_1', requester: 'ou_alice', callId: 'call_7', turn: 3 };
 * ```
 */
export interface McpCallOptions<TContext = undefined> {
  readonly sessionKey?: string | undefined;
  readonly requester?: string | undefined;
  readonly context?: TContext;
  /** The model's tool-call id; a fresh id by default (then every call is a new one). */
  readonly callId?: string | undefined;
  /** The turn the call id belongs to; each call is its own turn by default. */
  readonly turn?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** How long the person has to answer; the confirm gate's default otherwise. */
  readonly confirmTimeoutMs?: number | undefined;
}

/**
 * An MCP client behind a Parley tool gate. See {@link createMcpClientGate}.
 *
 * @example
 * ```ts
 * import type { McpClientGate } from '@parley/mcp';
 *
 * const names = (bridge: McpClientGate): string[] => bridge.tools.map((tool) => tool.name);
 * ```
 */
export interface McpClientGate<TContext = undefined> {
  /** The server's tools the model may call, as the server listed them: give these to the model. */
  readonly tools: readonly Tool[];
  /** Listed tools left out because their names are not `A-Z a-z 0-9 _ -` (1–64). */
  readonly skipped: readonly string[];
  /** The Parley tool gate in front of the server (events, snapshot, disable…). */
  readonly gate: ToolGate<string, TContext>;
  /**
   * Calls a server tool through the gate: the server's result when it ran, otherwise a result
   * with `isError: true`, the reason as text and `tool_feedback` as structured content. Never
   * throws for anything the model proposed.
   */
  callTool(
    params: { readonly name: string; readonly arguments?: Record<string, unknown> | undefined },
    options?: McpCallOptions<TContext>,
  ): Promise<CallToolResult>;
}

/**
 * Puts a connected MCP client behind a Parley tool gate: it lists the server's tools once, and
 * every call then passes the allowlist, the tool's JSON Schema and the policies, and waits for a
 * person's confirmation in chat when the tool is destructive, before it reaches the server.
 *
 * Use it where your agent loop would call `client.callTool`: hand `bridge.tools` to the model and
 * send its calls to `bridge.callTool`. A refused call comes back as a tool result the model reads
 * (`isError: true`) and never reaches the server.
 *
 * @throws McpBridgeError `invalid_argument` without a client or for a name in `allow` the server
 * does not list; ToolsError `confirm_unavailable` when a tool needs confirmation and no `confirm`
 * was given.
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { createMcpClientGate } from '@parley/mcp';
 * import { z } from 'zod';
 *
 * const server = new McpServer({ name: 'files', version: '1.0.0' });
 * server.registerTool('read_file', {
 *   description: 'Reads a file',
 *   inputSchema: { path: z.string() },
 *   annotations: { readOnlyHint: true },
 * }, ({ path }) => ({ content: [{ type: 'text', text: `contents of ${path}` }] }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: 'bot', version: '1.0.0' });
 * await client.connect(clientSide);
 *
 * const bridge = await createMcpClientGate({ client });
 * const ok = await bridge.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
 * console.log(ok.content); // [ { type: 'text', text: 'contents of a.txt' } ]
 * const bad = await bridge.callTool({ name: 'read_file', arguments: { file: 'a.txt' } });
 * console.log(bad.isError, bad.content); // true [ { type: 'text', text: 'The arguments are invalid: …' } ]
 * await client.close();
 * ```
 */
export async function createMcpClientGate<TContext = undefined>(
  options: McpClientGateOptions<TContext>,
): Promise<McpClientGate<TContext>> {
  const client = options?.client;
  if (typeof client?.callTool !== 'function' || typeof client.listTools !== 'function') {
    throw new McpBridgeError('invalid_argument', 'createMcpClientGate needs a connected MCP client');
  }
  const listed = await listAll(client);
  const usable = listed.filter((tool) => TOOL_NAME.test(tool.name));
  const skipped = listed.filter((tool) => !TOOL_NAME.test(tool.name)).map((tool) => tool.name);
  const allow = options.allow ?? usable.map((tool) => tool.name);
  for (const name of allow) {
    if (!usable.some((tool) => tool.name === name)) {
      throw new McpBridgeError('invalid_argument', `The server lists no usable tool named "${name}"`, {
        details: { tool: name },
      });
    }
  }
  const tools = usable.filter((tool) => allow.includes(tool.name));
  const validator = options.validator ?? new AjvJsonSchemaValidator();
  const needs = options.needsConfirmation;
  const definitions: AnyToolDefinition[] = tools.map((tool) =>
    defineTool({
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      description: tool.description?.trim() ? tool.description : tool.name,
      args: jsonSchemaArgs(tool.inputSchema, validator),
      jsonSchema: tool.inputSchema,
      reasons: [],
      confirm: needs === undefined ? isDestructive(tool) : (args) => needs(tool, args),
      execute: (args, { signal }) =>
        client.callTool({ name: tool.name, arguments: args }, undefined, {
          ...options.requestOptions,
          ...(signal === undefined ? {} : { signal }),
        }),
    }),
  );
  const gate = createToolGate<readonly AnyToolDefinition[], TContext>({
    tools: definitions,
    allowlist: definitions.map((tool) => tool.name),
    ...(options.policies === undefined ? {} : { policies: options.policies }),
    ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.storePrefix === undefined ? {} : { storePrefix: options.storePrefix }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const nextId = options.generateId ?? (() => generateId('mcp_'));
  let turns = 0;
  return {
    tools,
    skipped,
    gate,
    callTool(params, call = {}) {
      const turn = call.turn ?? ++turns;
      return runTurn(
        gate,
        { id: call.callId ?? nextId(), tool: params?.name, args: params?.arguments ?? {} },
        {
          turn,
          context: call.context as TContext, // the host's context type; undefined when it has none
          sessionKey: call.sessionKey,
          requester: call.requester,
          signal: call.signal,
          confirmTimeoutMs: call.confirmTimeoutMs,
        },
      );
    },
  };
}

/** Every tool the server lists, page by page (at most {@link MAX_LIST_PAGES} pages). */
async function listAll(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
