import type {
  AuthorizeResult,
  ConfirmAction,
  ConfirmationRecord,
  ConfirmationVerdict,
  ConfirmDecision,
  ConfirmOutcome,
  ConfirmRequest,
  ConfirmRulesOptions,
} from '@parley/confirm';
import type * as restate from '@restatedev/restate-sdk';
import type { Watched } from './watched.js';

/**
 * What the host's `send` is asked to deliver to a session: a prompt (`first`, `step` or
 * `reprompt`) of a confirmation, a notice ("too early"), a page of its summary, the decision, or
 * what was decided for someone who answered after it.
 *
 * @example
 * ```ts
 * import type { ConfirmOutbound } from '@parley/restate';
 *
 * const out: ConfirmOutbound = { type: 'late', outcome: 'confirmed', sessionKey: 'chat:1', id: 'c1' };
 * console.log(out.type); // late
 * ```
 */
export type ConfirmOutbound =
  | {
      readonly type: 'prompt';
      readonly kind: 'first' | 'step' | 'reprompt';
      readonly sessionKey: string;
      readonly record: ConfirmationRecord;
    }
  | { readonly type: 'notice'; readonly name: 'tooEarly'; readonly sessionKey: string; readonly id: string }
  | {
      readonly type: 'page';
      readonly index: number;
      readonly sessionKey: string;
      readonly record: ConfirmationRecord;
    }
  | {
      readonly type: 'decided';
      readonly sessionKey: string;
      readonly decision: ConfirmDecision;
      readonly notice: 'timedOut' | 'expired' | undefined;
    }
  | {
      readonly type: 'late';
      readonly outcome: ConfirmOutcome;
      readonly sessionKey: string;
      readonly id: string;
    };

/**
 * The options of {@link defineConfirmations}: the object's name, the host's `send` (run inside
 * `ctx.run`, so a journaled send is not repeated on a replay; answer `false` when the platform
 * refused it), the gate options the confirm step reads, and the defaults of a request.
 *
 * @example
 * ```ts
 * import type { ConfirmationsOptions } from '@parley/restate';
 *
 * const options: ConfirmationsOptions = { name: 'confirmations', send: async () => true, timeoutMs: 60_000 };
 * console.log(options.name); // confirmations
 * ```
 */
export interface ConfirmationsOptions {
  readonly name: string;
  /** Delivers a prompt, notice, page or decision to the session; `false` when the platform refused it. Run inside `ctx.run`. */
  readonly send: (out: ConfirmOutbound) => Promise<boolean>;
  /** The gate options `confirmStep` reads, standing allowances (`standingAllowanceMs`) included. */
  readonly rules?: ConfirmRulesOptions;
  /** The answering window of a request that names none (the gate's default otherwise). */
  readonly timeoutMs?: number;
  /** Who may answer a request that names no approvers (`requester` otherwise). */
  readonly approvers?: 'requester' | 'any';
}

/**
 * What `request` takes: the confirmation's id (unique within its session) and the request, whose
 * `sessionKey` must be the object's key.
 *
 * @example
 * ```ts
 * import type { NewConfirmationRequest } from '@parley/restate';
 *
 * const input: NewConfirmationRequest = {
 *   id: 'c1',
 *   request: { sessionKey: 'chat:1', action: { name: 'deploy', args: {} }, summary: 'Deploy', requester: 'alice' },
 * };
 * console.log(input.id); // c1
 * ```
 */
export interface NewConfirmationRequest {
  readonly id: string;
  readonly request: ConfirmRequest;
}

/**
 * What `request` answers: admitted (`prompted`, `queued`, or `decided` at once, for example
 * `refused` by `whenPending: 'reject'`), or refused as data.
 *
 * @example
 * ```ts
 * import type { RequestConfirmationResult } from '@parley/restate';
 *
 * const result: RequestConfirmationResult = { ok: true, id: 'c1', state: 'prompted' };
 * console.log(result.ok); // true
 * ```
 */
export type RequestConfirmationResult =
  | { readonly ok: true; readonly id: string; readonly state: 'prompted' | 'queued' | 'decided' }
  | {
      readonly ok: false;
      readonly code: 'duplicate_confirmation' | 'invalid_request' | 'session_mismatch';
      readonly message: string;
    };

/**
 * An inbound message of the session (`reply`): its text, its sender, whether a bot sent it, and the
 * platform's event id (a redelivered event counts once).
 *
 * @example
 * ```ts
 * import type { InboundReply } from '@parley/restate';
 *
 * const reply: InboundReply = { text: 'yes', senderId: 'alice', eventId: 'evt-1' };
 * console.log(reply.text); // yes
 * ```
 */
export interface InboundReply {
  readonly text: string;
  readonly senderId: string;
  readonly bot?: boolean;
  readonly eventId?: string;
}

/**
 * A card click (`click`): the confirmation it names, the choice, who clicked.
 *
 * @example
 * ```ts
 * import type { InboundClick } from '@parley/restate';
 *
 * const click: InboundClick = { id: 'c1', choice: 'confirm', senderId: 'alice' };
 * console.log(click.choice); // confirm
 * ```
 */
export interface InboundClick {
  readonly id: string;
  readonly choice: 'confirm' | 'cancel' | 'always';
  readonly senderId: string;
  readonly bot?: boolean;
}

/**
 * What `reply` and `click` answer: whether the message was consumed (it never reaches the agent),
 * the confirmation it was offered to and what the confirm step made of it; `stale_reply` for an
 * event that counted already, `unknown_confirmation` for a click on none.
 *
 * @example
 * ```ts
 * import type { InboundResult } from '@parley/restate';
 *
 * const result: InboundResult = { consumed: false };
 * console.log(result.consumed); // false
 * ```
 */
export interface InboundResult {
  readonly consumed: boolean;
  readonly id?: string;
  readonly verdict?: ConfirmationVerdict;
  readonly code?: 'stale_reply' | 'unknown_confirmation';
}

/**
 * The handlers of a confirmations object as Restate clients see them.
 *
 * @example
 * ```ts
 * import type { ConfirmationsHandlers } from '@parley/restate';
 *
 * type Authorize = ConfirmationsHandlers['authorize'];
 * ```
 */
export interface ConfirmationsHandlers {
  /** Makes a confirmation with `createConfirmation` and admits it with the step. */
  request(ctx: restate.ObjectContext, input: NewConfirmationRequest): Promise<RequestConfirmationResult>;
  /** Feeds an inbound message of the session to its prompted confirmation (or the one decided just before). */
  reply(ctx: restate.ObjectContext, input: InboundReply): Promise<InboundResult>;
  /** Feeds a card click to the confirmation it names. */
  click(ctx: restate.ObjectContext, input: InboundClick): Promise<InboundResult>;
  /** The durable window timer (cluster only). */
  windowOver(
    ctx: restate.ObjectContext,
    input: { readonly id: string; readonly timer: number },
  ): Promise<void>;
  /** Registers a waiter's awakeable (cluster only); use {@link awaitConfirmation}. */
  watch(
    ctx: restate.ObjectContext,
    input: { readonly id: string; readonly awakeableId: string },
  ): Promise<Watched<ConfirmDecision>>;
  /** Uses a confirmed decision once for its exact action (cluster only). */
  authorize(
    ctx: restate.ObjectContext,
    input: { readonly id: string; readonly action: ConfirmAction },
  ): Promise<AuthorizeResult>;
  /** The stored decision, or `null`. */
  decision(ctx: restate.ObjectSharedContext, id: string): Promise<ConfirmDecision | null>;
}

/**
 * A confirmations object definition, made by {@link defineConfirmations}: bind it to an endpoint.
 *
 * @example
 * ```ts
 * import type { ConfirmationsObject } from '@parley/restate';
 *
 * const objects: ConfirmationsObject<'confirmations'>[] = [];
 * console.log(objects.length); // 0
 * ```
 */
export type ConfirmationsObject<TName extends string> = restate.VirtualObjectDefinition<
  TName,
  ConfirmationsHandlers
>;
