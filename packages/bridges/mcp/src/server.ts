import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { type Clock, generateId, type IdGenerator, systemClock, type TimerHandle } from '@parley/core';
import { type AnyToolDefinition, type ToolGate, toMcpTools } from '@parley/tools';
import type { McpCallOptions } from './client.js';
import { McpBridgeError } from './errors.js';
import { runTurn } from './internal.js';
import { toRefusalResult } from './results.js';

/**
 * How often a call waiting on a person tells the client it is still alive, when the client asked
 * for progress: 10 s.
 *
 * @example
 * ```ts
 * import { DEFAULT_PROGRESS_INTERVAL_MS } from '@parley/mcp';
 *
 * console.log(DEFAULT_PROGRESS_INTERVAL_MS); // 10000
 * ```
 */
export const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

/**
 * What the SDK hands a request handler (the signal, the `_meta` with a progress token…).
 *
 * @example
 * ```ts
 * import type { McpRequestExtra } from '@parley/mcp';
 *
 * const who = (extra: McpRequestExtra): string | undefined => extra.authInfo?.clientId;
 * ```
 */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Options for {@link serveToolGate}.
 *
 * @example
 * ```ts
 * import type { McpServeOptions } from '@parley/mcp';
 * import { createToolGate, defineTool } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), reasons: [], execute: () => 'pong' });
 * const options: McpServeOptions = { gate: createToolGate({ tools: [ping], allowlist: ['ping'] }), tools: [ping] };
 * ```
 */
export interface McpServeOptions<TContext = undefined> {
  /** The gate every call passes. */
  readonly gate: ToolGate<string, TContext>;
  /** The gate's tools, listed to clients with their JSON Schemas. */
  readonly tools: readonly AnyToolDefinition[];
  /**
   * Where a call's confirmation is asked and with what context, from the request (its auth info,
   * session…). A call it gives no `sessionKey` cannot be confirmed (`confirmation_unavailable`).
   */
  readonly run?: (extra: McpRequestExtra) => McpCallOptions<TContext> | Promise<McpCallOptions<TContext>>;
  /** MCP annotations per tool name (`readOnlyHint`, `destructiveHint`…), listed as given. */
  readonly annotations?: Readonly<Record<string, ToolAnnotations>>;
  /**
   * How often a call still in the gate (waiting on a person, or running) sends a progress
   * notification, when the request carries a progress token: the client's request timeout is
   * then reset by progress (`resetTimeoutOnProgress`) while the person's own deadline is the
   * confirm gate's. {@link DEFAULT_PROGRESS_INTERVAL_MS} by default.
   */
  readonly progressIntervalMs?: number;
  readonly clock?: Clock;
  /** Makes call ids (MCP request ids repeat across connections); nanoid by default. */
  readonly generateId?: IdGenerator;
}

/**
 * Serves a Parley tool gate as the tools of an MCP server: `tools/list` lists the gate's tools, and
 * every `tools/call` passes the gate (allowlist, args schema, policies, a person's confirmation in
 * chat), a refusal coming back as a tool result with `isError: true` and `tool_feedback`.
 *
 * Use it on a server whose tools are all Parley's, before `connect`: it installs the `tools/list`
 * and `tools/call` handlers itself, so `registerTool` is not used on the same server. While a call
 * waits for a person, progress notifications keep a patient client's request alive; the person's
 * deadline stays the confirm gate's, and a client that cancels the request aborts the wait.
 *
 * @throws McpBridgeError `invalid_argument` for a missing server or gate, a tool the gate does not
 * hold, or a bad `progressIntervalMs`.
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { serveToolGate } from '@parley/mcp';
 * import { createToolGate, defineTool } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const add = defineTool({
 *   name: 'add', description: 'Adds two numbers', args: z.object({ a: z.number(), b: z.number() }),
 *   reasons: [], execute: ({ a, b }) => ({ sum: a + b }),
 * });
 * const server = new McpServer({ name: 'calc', version: '1.0.0' });
 * serveToolGate(server, { gate: createToolGate({ tools: [add], allowlist: ['add'] }), tools: [add] });
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: 'agent', version: '1.0.0' });
 * await client.connect(clientSide);
 * console.log((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent); // { sum: 3 }
 * console.log((await client.callTool({ name: 'add', arguments: { a: 'x' } })).isError); // true
 * await client.close();
 * ```
 */
export function serveToolGate<TContext = undefined>(
  server: McpServer | Server,
  options: McpServeOptions<TContext>,
): void {
  const low = server !== null && typeof server === 'object' && 'server' in server ? server.server : server;
  if (typeof low?.setRequestHandler !== 'function') {
    throw new McpBridgeError('invalid_argument', 'serveToolGate needs an McpServer or a Server');
  }
  const { gate, tools } = options ?? {};
  if (typeof gate?.process !== 'function' || !Array.isArray(tools)) {
    throw new McpBridgeError('invalid_argument', 'serveToolGate needs a tool gate and its tools');
  }
  for (const tool of tools) {
    if (!gate.names.includes(tool.name)) {
      throw new McpBridgeError('invalid_argument', `The gate holds no tool named "${tool.name}"`, {
        details: { tool: tool.name },
      });
    }
  }
  const interval = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  if (!Number.isFinite(interval) || interval <= 0) {
    throw new McpBridgeError('invalid_argument', 'progressIntervalMs must be a positive number');
  }
  const clock = options.clock ?? systemClock;
  const nextId = options.generateId ?? (() => generateId('mcp_'));
  const listed = toMcpTools(tools).map((tool) => {
    const annotations = options.annotations?.[tool.name];
    return annotations === undefined ? tool : { ...tool, annotations };
  });
  let turns = 0;

  low.registerCapabilities({ tools: {} });
  low.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  low.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const id = nextId();
    const stop = keepAlive(clock, interval, extra);
    try {
      let call: McpCallOptions<TContext>;
      try {
        call = (await options.run?.(extra)) ?? {};
      } catch {
        return toRefusalResult({
          id,
          tool: request.params.name,
          status: 'error',
          code: 'policy_error',
          reason: `The tool "${request.params.name}" could not be checked, so it was not run`,
        });
      }
      return await runTurn(
        gate,
        { id: call.callId ?? id, tool: request.params.name, args: request.params.arguments ?? {} },
        {
          turn: call.turn ?? ++turns,
          context: call.context as TContext, // the host's context type; undefined when it has none
          sessionKey: call.sessionKey,
          requester: call.requester,
          signal: call.signal ?? extra.signal,
          confirmTimeoutMs: call.confirmTimeoutMs,
        },
      );
    } finally {
      stop();
    }
  });
}

/** Sends progress every `interval` while a call is in the gate, if the client gave a token. */
function keepAlive(clock: Clock, interval: number, extra: McpRequestExtra): () => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => {};
  let timer: TimerHandle | undefined;
  let progress = 0;
  const tick = (): void => {
    progress += 1;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          message: 'Waiting for the call to be confirmed or to finish',
        },
      })
      .catch(() => {}); // the client is gone: the call's own signal ends the wait
    timer = clock.setTimeout(tick, interval);
  };
  timer = clock.setTimeout(tick, interval);
  return () => clock.clearTimeout(timer);
}
