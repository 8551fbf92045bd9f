/**
 * A request as the correlator emits it through `send` and accepts it in `receive`. Map it to your
 * transport's envelope (for `@parley/envelope`: `request_id`, `from`, `to`, intent = protocol).
 *
 * @example
 * ```ts
 * import type { RequestMessage } from '@parley/correlate';
 *
 * const message: RequestMessage = {
 *   kind: 'request', request_id: 'abc', protocol: 'shutdown', from: 'lead', to: 'alice',
 *   payload: { reason: 'work is done' }, deadline_at: 1_700_000_030_000,
 * };
 * ```
 */
export interface RequestMessage<TPayload = unknown> {
  readonly kind: 'request';
  readonly request_id: string;
  readonly protocol: string;
  readonly from: string;
  readonly to: string;
  readonly payload: TPayload;
  /** When the requester stops waiting (epoch ms); the responder's own record expires then too. */
  readonly deadline_at: number;
}

/**
 * A response to a request, carrying the same `request_id`.
 *
 * @example
 * ```ts
 * import type { ResponseMessage } from '@parley/correlate';
 *
 * const message: ResponseMessage = {
 *   kind: 'response', request_id: 'abc', protocol: 'shutdown', from: 'alice', to: 'lead',
 *   response: { approve: true },
 * };
 * ```
 */
export interface ResponseMessage<TResponse = unknown> {
  readonly kind: 'response';
  readonly request_id: string;
  readonly protocol: string;
  readonly from: string;
  readonly to: string;
  readonly response: TResponse;
}

/**
 * A progress note from the responder: "still working" or "waiting for a person". It extends the
 * request's deadline, never past the request's maximum total.
 *
 * @example
 * ```ts
 * import type { ProgressMessage } from '@parley/correlate';
 *
 * const message: ProgressMessage = {
 *   kind: 'progress', request_id: 'xyz', protocol: 'plan_approval', from: 'lead', to: 'bob',
 *   note: 'asked the owner', waiting_on_human: true,
 * };
 * ```
 */
export interface ProgressMessage {
  readonly kind: 'progress';
  readonly request_id: string;
  readonly protocol: string;
  readonly from: string;
  readonly to: string;
  readonly note?: string;
  /** The answer now waits on a person: the request switches to its human deadline. */
  readonly waiting_on_human?: boolean;
}

/**
 * Any message a correlator sends or receives.
 *
 * @example
 * ```ts
 * import type { CorrelateMessage } from '@parley/correlate';
 *
 * function describe(message: CorrelateMessage): string {
 *   return `${message.kind} ${message.request_id} ${message.from} → ${message.to}`;
 * }
 * ```
 */
export type CorrelateMessage = RequestMessage | ResponseMessage | ProgressMessage;

/** The longest id, name or party accepted from a peer. */
const MAX_TEXT = 256;
const MAX_NOTE = 4000;

/**
 * Checks the shape of an untrusted correlate message by hand (hot path): the message, or the text
 * of why it is malformed (a correlator refuses it `malformed`). Payloads and responses are checked
 * later by their protocol's schemas. Use it where correlate messages arrive outside a correlator.
 *
 * @example
 * ```ts
 * import { parseMessage } from '@parley/correlate';
 *
 * console.log(parseMessage({ kind: 'response', request_id: 'r1', protocol: 'shutdown', from: 'alice', to: 'lead' })); // a response needs a "response"
 * ```
 */
export function parseMessage(value: unknown): CorrelateMessage | string {
  if (typeof value !== 'object' || value === null) return 'a message must be an object';
  const m = value as Record<string, unknown>;
  if (!isText(m.request_id)) return '"request_id" must be a non-empty string';
  if (!isText(m.protocol)) return '"protocol" must be a non-empty string';
  if (!isText(m.from) || !isText(m.to)) return '"from" and "to" must be non-empty strings';
  switch (m.kind) {
    case 'request':
      if (!Object.hasOwn(m, 'payload')) return 'a request needs a "payload"';
      if (typeof m.deadline_at !== 'number' || !Number.isFinite(m.deadline_at))
        return '"deadline_at" must be epoch ms';
      return value as RequestMessage;
    case 'response':
      if (!Object.hasOwn(m, 'response')) return 'a response needs a "response"';
      return value as ResponseMessage;
    case 'progress':
      if (m.note !== undefined && (typeof m.note !== 'string' || m.note.length > MAX_NOTE))
        return '"note" must be a short string';
      if (m.waiting_on_human !== undefined && typeof m.waiting_on_human !== 'boolean')
        return '"waiting_on_human" must be a boolean';
      return value as ProgressMessage;
    default:
      return '"kind" must be request, response or progress';
  }
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT;
}
