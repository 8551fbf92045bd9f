/**
 * A person in the Teams stand-in: the Bot Framework account id (`29:…`) and display name.
 *
 * @example
 * ```ts
 * import type { TeamsUser } from '@parley/chat-sdk/testing';
 *
 * const alice: TeamsUser = { id: '29:alice', name: 'Alice' };
 * ```
 */
export interface TeamsUser {
  readonly id: string;
  readonly name: string;
}

/**
 * One activity the bot sent through the stand-in's Bot Connector API, with the buttons of its
 * Adaptive Card (each button's `data` is what a click on it submits).
 *
 * @example
 * ```ts
 * import type { TeamsSentActivity } from '@parley/chat-sdk/testing';
 *
 * const labels = (sent: TeamsSentActivity): string[] => sent.buttons.map((button) => button.title);
 * ```
 */
export interface TeamsSentActivity {
  readonly id: string;
  readonly conversationId: string;
  readonly text?: string;
  readonly buttons: readonly { readonly title: string; readonly data: Readonly<Record<string, unknown>> }[];
  /** The activity as the bot posted it. */
  readonly activity: Readonly<Record<string, unknown>>;
}

/**
 * How one delivery differs from the default: its activity id, when it was written (epoch ms),
 * and a token signed by a key the stand-in does not publish (`forged`), which the bot must refuse.
 *
 * @example
 * ```ts
 * import type { TeamsDeliveryMore } from '@parley/chat-sdk/testing';
 *
 * const forged: TeamsDeliveryMore = { forged: true };
 * ```
 */
export interface TeamsDeliveryMore {
  readonly id?: string;
  readonly at?: number;
  readonly forged?: boolean;
}
