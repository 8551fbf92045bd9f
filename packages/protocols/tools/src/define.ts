import { canonicalJson, type InferOutput, isStandardSchema, type StandardSchemaV1 } from '@parley/core';
import { ToolsError } from './errors.js';
import type { DisableUntil } from './types.js';

const REJECTION = Symbol.for('@parley/tools/rejection');

/**
 * What an executor returns to refuse a call with one of its tool's declared reasons; made by
 * `context.reject(...)`. Nothing is considered executed, and the call is reported as `tool_refused`.
 *
 * @example
 * ```ts
 * import type { ToolRejection } from '@parley/tools';
 *
 * function isPathBlocked(value: ToolRejection<'path_blocked' | 'area_locked'>): boolean {
 *   return value.reason === 'path_blocked';
 * }
 * ```
 */
export interface ToolRejection<TReason extends string = string> {
  readonly [REJECTION]: true;
  readonly reason: TReason;
  readonly message: string | undefined;
  readonly disableUntil: DisableUntil | undefined;
}

/**
 * What an executor (and a confirmation predicate) receives besides the arguments: the call, the
 * host's context for this batch (machine state, settings snapshot…), the turn, the batch's signal,
 * and `reject` to refuse with one of the tool's reasons.
 *
 * @example
 * ```ts
 * import type { ToolExecuteContext } from '@parley/tools';
 *
 * function turnOf(context: ToolExecuteContext<{ phase: string }, 'locked'>): number {
 *   return context.turn;
 * }
 * ```
 */
export interface ToolExecuteContext<TContext = unknown, TReason extends string = string> {
  readonly call: { readonly id: string; readonly tool: string; readonly reason?: string | undefined };
  readonly context: TContext;
  readonly turn: number;
  readonly signal: AbortSignal | undefined;
  /** Refuses the call with one of the tool's declared reasons; return what it returns. */
  reject(
    reason: TReason,
    message?: string,
    options?: { readonly disableUntil?: DisableUntil },
  ): ToolRejection<TReason>;
}

/**
 * What {@link defineTool} takes.
 *
 * @example
 * ```ts
 * import type { ToolInit } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const Args = z.object({ sql: z.string() });
 * const init: ToolInit<'data_modify', typeof Args, 'read_only', number> = {
 *   name: 'data_modify',
 *   description: 'Runs one SQL statement',
 *   args: Args,
 *   reasons: ['read_only'],
 *   confirm: (args) => /^\s*(delete|drop|update|insert|alter|truncate)\b/i.test(args.sql),
 *   execute: () => 0,
 * };
 * ```
 */
export interface ToolInit<
  TName extends string,
  TArgs extends StandardSchemaV1,
  TReason extends string,
  TResult,
  TContext = unknown,
> {
  /** 1–64 characters of `A-Z a-z 0-9 _ -` (what every function-calling API accepts). */
  readonly name: TName;
  /** A short human title (MCP `title`). */
  readonly title?: string;
  readonly description: string;
  /** The args schema, any Standard Schema; the model's arguments are validated against it. */
  readonly args: TArgs;
  /**
   * Every reason this tool may refuse a call for (the reference's rejection-reason enumeration);
   * none when left out, and then the executor cannot refuse.
   */
  readonly reasons?: readonly TReason[];
  /** Whether a person must confirm first: always, never (default), or per call from the arguments. */
  readonly confirm?: boolean | ((args: InferOutput<TArgs>, context: TContext) => boolean);
  /**
   * The confirmation prompt's summary; by default `<name> <arguments>`, the arguments (the args
   * schema's output) written by `canonicalJson` from `@parley/core`, keys sorted whatever order the
   * model used. It is given the arguments exactly as confirmed and run.
   */
  readonly summarize?: (args: InferOutput<TArgs>) => string;
  /** Ask OpenAI for strict schema adherence when exported (the schema must allow it). */
  readonly strict?: boolean;
  /** A JSON Schema written by hand, for args schemas that cannot describe themselves. */
  readonly jsonSchema?: Readonly<Record<string, unknown>>;
  /** The host's executor; runs only after every check passed, at most once per call id and turn. */
  readonly execute: (
    args: InferOutput<TArgs>,
    context: ToolExecuteContext<TContext, TReason>,
  ) => TResult | ToolRejection<TReason> | Promise<TResult | ToolRejection<TReason>>;
}

/**
 * A tool made by {@link defineTool}: static, with no state, fine as a module constant.
 *
 * @example
 * ```ts
 * import type { ToolDefinition } from '@parley/tools';
 *
 * function describe(tool: ToolDefinition): string {
 *   return `${tool.name}: ${tool.description} (refuses: ${tool.reasons.join(', ')})`;
 * }
 * ```
 */
export interface ToolDefinition<
  TName extends string = string,
  TArgs extends StandardSchemaV1 = StandardSchemaV1,
  TReason extends string = string,
  TResult = unknown,
  TContext = unknown,
> {
  readonly kind: 'parley.tool';
  readonly name: TName;
  readonly title: string | undefined;
  readonly description: string;
  readonly args: TArgs;
  readonly reasons: readonly TReason[];
  /** `always`, `never`, or `per_call` when `confirm` was a function. */
  readonly confirmation: 'always' | 'never' | 'per_call';
  readonly strict: boolean | undefined;
  readonly jsonSchema: Readonly<Record<string, unknown>> | undefined;
  /** Whether this call needs a person's confirmation. */
  needsConfirmation(args: InferOutput<TArgs>, context: TContext): boolean;
  /** The confirmation prompt's summary. */
  summarize(args: InferOutput<TArgs>): string;
  /** Runs the tool; returns its result, or `context.reject(reason)` to refuse with a declared reason. */
  execute(
    args: InferOutput<TArgs>,
    context: ToolExecuteContext<TContext, TReason>,
  ): TResult | ToolRejection<TReason> | Promise<TResult | ToolRejection<TReason>>;
}

/**
 * Any tool definition, whatever its name, schema, reasons, result and context (the context is
 * `never`, so a tool expecting any context fits; its methods keep the rest assignable).
 *
 * @example
 * ```ts
 * import type { AnyToolDefinition } from '@parley/tools';
 *
 * const names = (tools: readonly AnyToolDefinition[]): string[] => tools.map((tool) => tool.name);
 * ```
 */
export type AnyToolDefinition = ToolDefinition<string, StandardSchemaV1, string, unknown, never>;

/**
 * The literal names of a list of tools.
 *
 * @example
 * ```ts
 * import { defineTool, type ToolNameOf } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), reasons: [], execute: () => 'pong' });
 * const name: ToolNameOf<readonly [typeof ping]> = 'ping';
 * ```
 */
export type ToolNameOf<TTools extends readonly AnyToolDefinition[]> = TTools[number]['name'];

/**
 * Defines a tool: its name, description, args schema (any Standard Schema), the enumeration of
 * reasons it may refuse with, the host's executor, and whether a person must confirm it.
 *
 * Use it once per tool, as a module constant, then hand the tools to {@link createToolGate} and to
 * the exporters. The definition is checked at once against the reference's extension rules.
 *
 * @throws ToolsError `invalid_tool` for a bad name, description, executor, `confirm` or `jsonSchema`;
 * `missing_args_schema` when `args` is not a Standard Schema; `missing_reasons` when `reasons` is
 * given and is not a list of distinct non-empty strings (left out, the tool declares none).
 * @example
 * ```ts
 * import { defineTool } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const hpDelta = defineTool({
 *   name: 'hp_delta',
 *   description: 'Changes a character\'s hit points by delta',
 *   args: z.object({ target_character_id: z.string(), delta: z.number().int(), cause: z.string() }),
 *   reasons: ['unknown_character', 'character_dead'],
 *   execute: (args, { reject }) =>
 *     args.target_character_id === 'pc_1' ? { hp: 15 + args.delta } : reject('unknown_character'),
 * });
 * console.log(hpDelta.name, hpDelta.confirmation); // hp_delta never
 * ```
 */
export function defineTool<
  const TName extends string,
  TArgs extends StandardSchemaV1,
  const TReason extends string = never,
  TResult = unknown,
  TContext = unknown,
>(
  init: ToolInit<TName, TArgs, TReason, TResult, TContext>,
): ToolDefinition<TName, TArgs, TReason, TResult, TContext> {
  // No `reasons` is an empty enumeration; a present one must be a list (checked below).
  checkToolShape(
    init === null || typeof init !== 'object' || ('reasons' in init && init.reasons !== undefined)
      ? init
      : { ...init, reasons: [] },
    'defineTool',
  );
  const confirm = init.confirm ?? false;
  const execute = init.execute;
  const summarize = init.summarize;
  return Object.freeze({
    kind: 'parley.tool',
    name: init.name,
    title: init.title,
    description: init.description,
    args: init.args,
    reasons: Object.freeze([...(init.reasons ?? [])]),
    confirmation: typeof confirm === 'function' ? 'per_call' : confirm ? 'always' : 'never',
    strict: init.strict,
    jsonSchema: init.jsonSchema,
    needsConfirmation: (args: InferOutput<TArgs>, context: TContext) =>
      typeof confirm === 'function' ? confirm(args, context) === true : confirm,
    summarize: (args: InferOutput<TArgs>) =>
      summarize === undefined ? `${init.name} ${canonicalJson(args)}` : summarize(args),
    execute: (args: InferOutput<TArgs>, context: ToolExecuteContext<TContext, TReason>) =>
      execute(args, context),
  } as const);
}

/** @internal Makes the value an executor returns to refuse a call. */
export function createRejection<TReason extends string>(
  reason: TReason,
  message: string | undefined,
  disableUntil: DisableUntil | undefined,
): ToolRejection<TReason> {
  return Object.freeze({ [REJECTION]: true as const, reason, message, disableUntil });
}

/** @internal Tells whether an executor returned a rejection. */
export function isToolRejection(value: unknown): value is ToolRejection {
  return (
    typeof value === 'object' && value !== null && (value as { [REJECTION]?: unknown })[REJECTION] === true
  );
}

/** @internal The names every function-calling API accepts (OpenAI, Anthropic, MCP). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** @internal Checks a definition (or its init) against the extension rules; `where` names the caller. */
export function checkToolShape(tool: unknown, where: string): void {
  if (typeof tool !== 'object' || tool === null) {
    throw new ToolsError('invalid_tool', `${where}: a tool must be an object made with defineTool`);
  }
  const value = tool as Record<string, unknown>;
  const name = value['name'];
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ToolsError('invalid_tool', `${where}: the tool name must match ${TOOL_NAME_PATTERN}`, {
      details: { name: String(name) },
    });
  }
  const fail = (code: 'invalid_tool' | 'missing_args_schema' | 'missing_reasons', problem: string): never => {
    throw new ToolsError(code, `${where}: the tool "${name}" ${problem}`, { details: { tool: name } });
  };
  if (typeof value['description'] !== 'string' || value['description'].trim() === '') {
    fail('invalid_tool', 'needs a description');
  }
  if (value['title'] !== undefined && typeof value['title'] !== 'string')
    fail('invalid_tool', 'has a bad title');
  if (typeof value['execute'] !== 'function') fail('invalid_tool', 'needs an execute function');
  const confirm = value['confirm'] ?? false;
  if (typeof confirm !== 'boolean' && typeof confirm !== 'function') {
    fail('invalid_tool', 'has a "confirm" that is neither a boolean nor a function');
  }
  const jsonSchema = value['jsonSchema'];
  if (jsonSchema !== undefined && (typeof jsonSchema !== 'object' || jsonSchema === null)) {
    fail('invalid_tool', 'has a "jsonSchema" that is not an object');
  }
  if (!isStandardSchema(value['args'])) fail('missing_args_schema', 'has no args schema (a Standard Schema)');
  const reasons = value['reasons'];
  if (!Array.isArray(reasons)) fail('missing_reasons', 'has no enumeration of rejection reasons');
  const seen = new Set<string>();
  for (const reason of reasons as unknown[]) {
    if (typeof reason !== 'string' || reason === '' || seen.has(reason)) {
      fail('missing_reasons', `has a bad or repeated rejection reason: ${JSON.stringify(reason)}`);
    }
    seen.add(reason as string);
  }
}
