import type { Actor, ActorOptions } from './actor-types.js';
import { MachineActor } from './internal/machine-actor.js';
import type { Machine } from './machine.js';

/**
 * Creates a running instance of a machine, new or resumed from a snapshot.
 *
 * Use it wherever a protocol runs: one actor per request, session or conversation. The hot path of
 * `send` is a table lookup; the history is bounded by `historyLimit`. A resumed actor's timeouts
 * keep their absolute deadlines: an overdue one fires before any other event is taken (and on the
 * clock's next turn), a pending one after exactly the remaining time.
 *
 * @throws FsmError `invalid_snapshot`, `wrong_machine`, `version_mismatch`, `migration_failed`,
 * `unknown_state` or `invalid_context` when `snapshot` cannot be restored; `invalid_context` when
 * `context` fails the machine's `contextSchema`.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createActor, requestMachine } from '@parley/fsm';
 *
 * const clock = createManualClock();
 * const actor = createActor(requestMachine, { clock });
 * actor.on('done', ({ state }) => console.log('settled', state));
 * console.log(actor.send('approve')); // { ok: true, from: 'pending', to: 'approved', event: 'approve' }
 * console.log(actor.send('reject').ok); // false (machine_done)
 * const resumed = createActor(requestMachine, { clock, snapshot: JSON.parse(JSON.stringify(actor.snapshot())) });
 * console.log(resumed.state); // approved
 * ```
 */
export function createActor<TState extends string, TEvent extends string, TContext>(
  machine: Machine<TState, TEvent, TContext>,
  options: ActorOptions<TContext> = {},
): Actor<TState, TEvent, TContext> {
  // The class is the untyped implementation of the typed interface: same members, names checked by the machine.
  return new MachineActor(
    machine as unknown as Machine<string, string, unknown>,
    options,
  ) as unknown as Actor<TState, TEvent, TContext>;
}
