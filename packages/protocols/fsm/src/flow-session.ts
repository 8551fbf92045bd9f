import { type Clock, createEmitter, type Emitter, systemClock, type Unsubscribe } from '@parley/core';
import { DEFAULT_HISTORY_LIMIT } from './actor-types.js';
import type { Flow } from './flow.js';
import type { FlowFields, FlowSnapshot, FlowStatus, FlowSubmitResult } from './flow-types.js';

/**
 * Options for {@link createFlowSession}.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { FlowSessionOptions } from '@parley/fsm';
 *
 * const options: FlowSessionOptions<{}> = { clock: createManualClock(), historyLimit: 50 };
 * ```
 */
export interface FlowSessionOptions<TContext> {
  /** Timestamps; the system clock by default. */
  readonly clock?: Clock;
  /** A persisted flow snapshot to resume from; checked like `flow.restore` (all or nothing). */
  readonly snapshot?: unknown;
  readonly context?: TContext;
  /** Most history entries kept; {@link DEFAULT_HISTORY_LIMIT} by default. */
  readonly historyLimit?: number;
}

/**
 * The events a flow session emits, after its snapshot is committed.
 *
 * @example
 * ```ts
 * import type { FlowSessionEvents } from '@parley/fsm';
 *
 * const log = (payload: FlowSessionEvents<'goal'>['failed']) => console.log(payload.step, payload.action);
 * ```
 */
export interface FlowSessionEvents<TStep extends string> {
  /** The flow moved to another step (or `done`). */
  transition: { from: TStep | 'done'; to: TStep | 'done'; event: string; at: number };
  /** A submission failed; `action` is the failure handling taken. */
  failed: {
    step: TStep;
    code: 'invalid_fields' | 'exit_failed';
    action: string;
    message: string;
    at: number;
  };
  /** A submission came after the flow was done. */
  refused: {
    code: 'flow_done';
    message: string;
    /** @deprecated Use `message` (the same text); removed in the next minor version. */
    reason: string;
    at: number;
  };
  /** The last step was completed. */
  done: { at: number; fields: FlowFields };
}

/**
 * A running flow: the current step and prompt, `submit`, the collected fields and the snapshot.
 *
 * @example
 * ```ts
 * import { createFlowSession, defineFlow, type FlowSession } from '@parley/fsm';
 * import { z } from 'zod';
 *
 * const flow = defineFlow({ id: 'f', version: 1, steps: [{ name: 'goal', prompt: 'Goal?', fields: z.object({ goal: z.string() }) }] });
 * const session: FlowSession<'goal', Record<string, never>> = createFlowSession(flow);
 * ```
 */
export interface FlowSession<TStep extends string, TContext> {
  readonly flow: Flow<TStep, TContext>;
  /** The current step, or `done`. */
  readonly step: TStep | 'done';
  readonly status: FlowStatus;
  readonly done: boolean;
  /** The question to ask now; `undefined` when done. */
  readonly prompt: string | undefined;
  readonly fields: FlowFields;
  /** Validates and records an answer for the current step (see `Flow.submit`). */
  submit(fields: unknown): FlowSubmitResult<TStep, TContext>;
  /** The plain-JSON snapshot to persist. */
  snapshot(): FlowSnapshot<TStep, TContext>;
  /** Adds a listener for a session event; returns a function that removes it. */
  on<K extends keyof FlowSessionEvents<TStep> & string>(
    event: K,
    listener: (payload: FlowSessionEvents<TStep>[K]) => void,
  ): Unsubscribe;
}

/**
 * Creates a running session of a flow, new or resumed from a snapshot.
 *
 * Use one per conversation: feed each user answer to `submit`, say `prompt` (or the failure's
 * `message`), persist `snapshot()` after each answer, and perform side effects when the flow
 * reaches the step that allows them.
 *
 * @throws FsmError the codes of `flow.restore` when `snapshot` cannot be restored (nothing is
 * created: a snapshot that skips a step, answers ahead of its step or does not fit its history is
 * refused); `invalid_definition` from `submit` when a policy function goes back to a step that is
 * not earlier.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createFlowSession, defineFlow } from '@parley/fsm';
 * import { z } from 'zod';
 *
 * const flow = defineFlow({
 *   id: 'notify',
 *   version: 1,
 *   steps: [
 *     {
 *       name: 'notify',
 *       prompt: 'How should I notify results? (none/telegram)',
 *       fields: z.object({ notify_mode: z.enum(['none', 'telegram']) }),
 *       onFailure: { action: 'default', value: { notify_mode: 'none' }, message: 'Unsupported mode: no notification' },
 *     },
 *   ],
 * });
 * const session = createFlowSession(flow, { clock: createManualClock() });
 * const result = session.submit({ notify_mode: 'fax' });
 * console.log(result.ok && result.notice, session.fields.notify); // Unsupported mode: no notification { notify_mode: 'none' }
 * ```
 */
export function createFlowSession<TStep extends string, TContext>(
  flow: Flow<TStep, TContext>,
  options: FlowSessionOptions<TContext> = {},
): FlowSession<TStep, TContext> {
  // The class is the untyped implementation of the typed interface (as the actor's is).
  return new Session(flow as unknown as Flow<string, unknown>, options) as unknown as FlowSession<
    TStep,
    TContext
  >;
}

/** A class, not an object literal of getters and closures: cheap to create, one shape for all. */
class Session {
  readonly flow: Flow<string, unknown>;
  private readonly clock: Clock;
  private readonly limit: number;
  private current: FlowSnapshot<string, unknown>;
  private events: Emitter<FlowSessionEvents<string>> | undefined = undefined;

  constructor(flow: Flow<string, unknown>, options: FlowSessionOptions<unknown>) {
    this.flow = flow;
    this.clock = options.clock ?? systemClock;
    this.limit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    this.current =
      options.snapshot === undefined
        ? flow.start(
            options.context === undefined
              ? { at: this.clock.now() }
              : { at: this.clock.now(), context: options.context },
          )
        : flow.restore(options.snapshot);
  }

  get step(): string {
    return this.current.state;
  }

  get status(): FlowStatus {
    return this.current.status;
  }

  get done(): boolean {
    return this.current.done;
  }

  get prompt(): string | undefined {
    return this.flow.prompt(this.current);
  }

  get fields(): FlowFields {
    return this.current.fields;
  }

  submit(fields: unknown): FlowSubmitResult<string, unknown> {
    const at = this.clock.now();
    const before = this.current;
    const result = this.flow.submit(before, fields, { at, historyLimit: this.limit });
    const current = result.snapshot;
    this.current = current;
    const events = this.events;
    if (events === undefined) return result;
    if (!result.ok && result.code === 'flow_done') {
      events.emit('refused', { code: 'flow_done', message: result.message, reason: result.message, at });
      return result;
    }
    if (!result.ok) {
      events.emit('failed', {
        step: result.step,
        code: result.code,
        action: result.action,
        message: result.message,
        at,
      });
    }
    if (current.state !== before.state) {
      const last = current.history[current.history.length - 1];
      events.emit('transition', {
        from: before.state,
        to: current.state,
        event: last?.event ?? 'submit',
        at,
      });
    }
    if (current.done) events.emit('done', { at, fields: current.fields });
    return result;
  }

  snapshot(): FlowSnapshot<string, unknown> {
    return this.current;
  }

  on<K extends keyof FlowSessionEvents<string> & string>(
    event: K,
    listener: (payload: FlowSessionEvents<string>[K]) => void,
  ): Unsubscribe {
    this.events ??= createEmitter();
    return this.events.on(event, listener);
  }
}
