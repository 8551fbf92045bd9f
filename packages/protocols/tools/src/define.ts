import { canonicalJson, type InferOutput, type StandardSchemaV1 } from '@parley/core';
import type { ToolRejection } from './rejection.js';
import { checkToolShape } from './shape.js';
import type { DisableUntil } from './types.js';

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
