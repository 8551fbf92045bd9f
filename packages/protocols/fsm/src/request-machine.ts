import { defineMachine, type Machine } from './machine.js';

/**
 * The states of {@link requestMachine}.
 *
 * @example
 * ```ts
 * import type { RequestState } from '@parley/fsm';
 *
 * const state: RequestState = 'pending';
 * ```
 */
export type RequestState = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';

/**
 * The events of {@link requestMachine}.
 *
 * @example
 * ```ts
 * import type { RequestEvent } from '@parley/fsm';
 *
 * const event: RequestEvent = 'approve';
 * ```
 */
export type RequestEvent = 'approve' | 'reject' | 'expire' | 'cancel';

/**
 * The context of {@link requestMachine}: the reason given with the settling event, if any.
 *
 * @example
 * ```ts
 * import type { RequestContext } from '@parley/fsm';
 *
 * const context: RequestContext = { reason: 'plan looks safe' };
 * ```
 */
export type RequestContext = {
  readonly reason?: string;
};

/**
 * Options for {@link defineRequestMachine}.
 *
 * @example
 * ```ts
 * import type { RequestMachineOptions } from '@parley/fsm';
 *
 * const options: RequestMachineOptions = { id: 'plan-approval', timeoutMs: 60_000 };
 * ```
 */
export interface RequestMachineOptions {
  /** Machine id written into snapshots; `request` by default. */
  readonly id?: string;
  /** When set, a pending request sends itself `expire` after this many ms. */
  readonly timeoutMs?: number;
}

/**
 * Defines the shared request machine `pending → approved | rejected | expired | cancelled`, with its
 * own id and optionally a timeout that expires a pending request by itself.
 *
 * Use it for a protocol whose requests expire on their own actor's timer; trackers that keep many
 * requests on one deadline queue use {@link requestMachine} and send `expire` themselves.
 *
 * @throws FsmError `invalid_definition` when `timeoutMs` is not a valid delay.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createActor, defineRequestMachine } from '@parley/fsm';
 *
 * const clock = createManualClock();
 * const shutdown = createActor(defineRequestMachine({ id: 'shutdown', timeoutMs: 30_000 }), { clock });
 * clock.advance(30_000);
 * console.log(shutdown.state); // expired
 * ```
 */
export function defineRequestMachine(
  options: RequestMachineOptions = {},
): Machine<RequestState, RequestEvent, RequestContext> {
  const settle = (target: Exclude<RequestState, 'pending'>) =>
    ({
      target,
      assign: (_context: RequestContext, event: { readonly [key: string]: unknown }): RequestContext =>
        typeof event.reason === 'string' ? { reason: event.reason } : {},
    }) as const;
  return defineMachine({
    id: options.id ?? 'request',
    version: 1,
    initial: 'pending',
    context: {} as RequestContext,
    states: {
      pending: {
        on: {
          approve: settle('approved'),
          reject: settle('rejected'),
          expire: settle('expired'),
          cancel: settle('cancelled'),
        },
        ...(options.timeoutMs === undefined ? {} : { after: { [options.timeoutMs]: 'expire' as const } }),
      },
      approved: { final: true },
      rejected: { final: true },
      expired: { final: true },
      cancelled: { final: true },
    },
  });
}

/**
 * The shared request machine: `pending` settles once to `approved`, `rejected`, `expired` or
 * `cancelled` (all final); a second settling event is refused with `machine_done`. An event may carry
 * a `reason`, kept in the context.
 *
 * Use it for the state of each tracked request of a request/response protocol (shutdown
 * handshakes, plan approval), as `@parley/correlate` does.
 *
 * @example
 * ```ts
 * import { createActor, requestMachine } from '@parley/fsm';
 *
 * const plan = createActor(requestMachine);
 * plan.send({ type: 'reject', reason: 'too risky' });
 * console.log(plan.state, plan.context.reason); // rejected too risky
 * console.log(plan.send('approve').ok); // false
 * ```
 */
export const requestMachine: Machine<RequestState, RequestEvent, RequestContext> =
  /* @__PURE__ */ defineRequestMachine();
