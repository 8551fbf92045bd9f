import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ConfirmGate } from '@parley/confirm';
import type { JsonValue } from '@parley/core';
import { McpBridgeError } from './errors.js';

/**
 * The confirm gate's action name for an elicitation, also its `resume` key: `mcp.elicitation`.
 *
 * @example
 * ```ts
 * import { ELICITATION_ACTION } from '@parley/mcp';
 *
 * console.log(ELICITATION_ACTION); // mcp.elicitation
 * ```
 */
export const ELICITATION_ACTION = 'mcp.elicitation';

/**
 * Why an elicitation was refused without asking anyone: `url_mode` (a URL elicitation, which a
 * confirmation cannot carry), `unfillable_form` (a form requiring a field that has no default and
 * is not a boolean: free text a confirm/cancel answer cannot give), `no_route` (the route named no
 * chat for it).
 *
 * @example
 * ```ts
 * import { ELICITATION_REFUSAL_CODES } from '@parley/mcp';
 *
 * console.log(ELICITATION_REFUSAL_CODES); // [ 'url_mode', 'unfillable_form', 'no_route' ]
 * ```
 */
export const ELICITATION_REFUSAL_CODES = ['url_mode', 'unfillable_form', 'no_route'] as const;

/**
 * The `_meta` key under which a refused elicitation's result carries its {@link ElicitationRefusal}
 * (`code`, `message`, and `reason`, the same text under its former name), so the server can tell
 * it from a person's cancel.
 *
 * @example
 * ```ts
 * import { ELICITATION_REFUSAL_META } from '@parley/mcp';
 *
 * console.log(ELICITATION_REFUSAL_META); // dev.parley/refusal
 * ```
 */
export const ELICITATION_REFUSAL_META = 'dev.parley/refusal';

/**
 * An elicitation refused without asking: its code, why in words (`message`, as every Parley
 * refusal), and the elicitation's own message (`request`).
 *
 * @example
 * ```ts
 * import type { ElicitationRefusal } from '@parley/mcp';
 *
 * const why = 'URL elicitations are not answered in chat';
 * const refusal: ElicitationRefusal = { code: 'url_mode', message: why, reason: why, request: 'Sign in' };
 * ```
 */
export interface ElicitationRefusal {
  readonly code: (typeof ELICITATION_REFUSAL_CODES)[number];
  /** Why it was refused, in words. */
  readonly message: string;
  /** @deprecated The same text as `message`, under its former name; removed in the next minor version. */
  readonly reason: string;
  /** The message of the elicitation refused (which `message` held before; see the changelog). */
  readonly request: string;
}

/**
 * The chat and person an elicitation is asked of.
 *
 * @example
 * ```ts
 * import type { ElicitationRoute } from '@parley/mcp';
 *
 * const route: ElicitationRoute = { sessionKey: 'feishu:oc_1', requester: 'ou_alice' };
 * ```
 */
export interface ElicitationRoute {
  readonly sessionKey: string;
  readonly requester: string;
}

/**
 * Options for {@link answerElicitations}.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import type { AnswerElicitationsOptions } from '@parley/mcp';
 *
 * const options: AnswerElicitationsOptions = {
 *   confirm: createConfirmGate({ bus: createMessageBus() }),
 *   route: { sessionKey: 'feishu:oc_1', requester: 'ou_alice' },
 *   timeoutMs: 120_000,
 * };
 * await options.confirm.close();
 * ```
 */
export interface AnswerElicitationsOptions {
  readonly confirm: ConfirmGate;
  /** Where to ask: one chat, or per request (nothing: the elicitation is cancelled unasked). */
  readonly route: ElicitationRoute | ((request: ElicitRequest) => ElicitationRoute | undefined);
  /**
   * How long the person has to answer; the confirm gate's default otherwise. It is the person's
   * deadline, apart from the server's request timeout: when the server gives up first (it cancels
   * the request), the wait is aborted and nothing is accepted.
   */
  readonly timeoutMs?: number;
  /** Told of every elicitation refused without asking (e.g. to log it or tell the chat). */
  readonly onRefused?: (refusal: ElicitationRefusal) => void;
}

/**
 * Answers a server's elicitation requests through a person in chat: the server's message is sent
 * to the chat as a confirmation, and the person's reply (strictly parsed, only theirs, before the
 * deadline) becomes `accept`, `decline` (they cancelled) or `cancel` (no answer in time, aborted).
 *
 * Use it on a client that declared `capabilities.elicitation.form`. A confirmation carries no free
 * text, so an accepted form holds each property's `default` and `true` for booleans without one;
 * a form that requires anything else, and `url` elicitations, are cancelled without asking.
 *
 * @throws McpBridgeError `invalid_argument` without a client, a confirm gate or a route.
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import { answerElicitations } from '@parley/mcp';
 *
 * const client = new Client({ name: 'bot', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
 * const confirm = createConfirmGate({ bus: createMessageBus() });
 * answerElicitations(client, { confirm, route: { sessionKey: 'feishu:oc_1', requester: 'ou_alice' } });
 * await confirm.close();
 * ```
 */
export function answerElicitations(client: Client, options: AnswerElicitationsOptions): void {
  if (typeof client?.setRequestHandler !== 'function') {
    throw new McpBridgeError('invalid_argument', 'answerElicitations needs an MCP client');
  }
  const { confirm, route } = options ?? {};
  if (typeof confirm?.request !== 'function' || (typeof route !== 'function' && typeof route !== 'object')) {
    throw new McpBridgeError('invalid_argument', 'answerElicitations needs a confirm gate and a route');
  }
  client.setRequestHandler(ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
    const params = request.params;
    const refuse = (code: ElicitationRefusal['code'], message: string): ElicitResult => {
      options.onRefused?.({ code, message, reason: message, request: params.message });
      return {
        action: 'cancel',
        _meta: { [ELICITATION_REFUSAL_META]: { code, message, reason: message } },
      };
    };
    if (params.mode === 'url') {
      return refuse('url_mode', 'A URL elicitation cannot be answered by a confirmation in chat');
    }
    const content = contentOf(params.requestedSchema);
    if (typeof content === 'string') {
      return refuse(
        'unfillable_form',
        `The form requires "${content}", which a confirm/cancel answer cannot fill`,
      );
    }
    const to = typeof route === 'function' ? route(request) : route;
    if (to === undefined) return refuse('no_route', 'No chat to ask this elicitation in');
    const action = { name: ELICITATION_ACTION, args: { message: params.message, content } };
    const decision = await confirm.request({
      sessionKey: to.sessionKey,
      requester: to.requester,
      action,
      summary: params.message,
      signal: extra.signal,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    if (decision.outcome === 'cancelled') return { action: 'decline' };
    if (decision.outcome !== 'confirmed') return { action: 'cancel' };
    const auth = await confirm.authorize(decision, action);
    return auth.ok ? { action: 'accept', content } : { action: 'cancel' };
  });
}

type Content = Record<string, string | number | boolean | string[]>;

/** What an accepted form holds, or `undefined` when a required property cannot be filled. */
function contentOf(schema: {
  readonly properties: Readonly<Record<string, object>>;
  readonly required?: readonly string[] | undefined;
}): (Content & Record<string, JsonValue>) | string {
  const content: Content = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    const { default: fallback, type } = property as { default?: Content[string]; type?: unknown };
    if (fallback !== undefined) content[key] = fallback;
    else if (type === 'boolean') content[key] = true;
  }
  const required = schema.required ?? [];
  return required.find((key) => !(key in content)) ?? content; // the first field it cannot fill
}
