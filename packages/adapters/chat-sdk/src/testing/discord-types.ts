// What the Discord stand-in's people, posted messages and deliveries look like.

/**
 * A person in the Discord stand-in.
 *
 * @example
 * ```ts
 * import type { DiscordUser } from '@parley/chat-sdk/testing';
 *
 * const alice: DiscordUser = { id: '300000000000000001', username: 'alice' };
 * ```
 */
export interface DiscordUser {
  readonly id: string;
  readonly username: string;
}

/**
 * One message the bot posted through the stand-in's REST API, as Discord stores it.
 *
 * @example
 * ```ts
 * import type { DiscordPostedMessage } from '@parley/chat-sdk/testing';
 *
 * const labels = (message: DiscordPostedMessage): string[] =>
 *   (message.components ?? []).flatMap((row) => row.components.map((button) => button.label));
 * ```
 */
export interface DiscordPostedMessage {
  readonly id: string;
  readonly channel_id: string;
  readonly content?: string;
  readonly embeds?: readonly { readonly title?: string; readonly description?: string }[];
  readonly components?: readonly {
    readonly components: readonly {
      readonly custom_id: string;
      readonly label: string;
      readonly style: number;
    }[];
  }[];
}

/**
 * How one delivered message differs from the default.
 *
 * @example
 * ```ts
 * import type { DiscordMessageMore } from '@parley/chat-sdk/testing';
 *
 * const inThread: DiscordMessageMore = { channelId: '400000000000000001', mention: true };
 * ```
 */
export interface DiscordMessageMore {
  /** Its snowflake; one from `at` by default. */
  readonly id?: string;
  /** When it was written (epoch ms); the clock's now by default. */
  readonly at?: number;
  /** A thread's id (its parent is the default channel). */
  readonly channelId?: string;
  readonly mention?: boolean;
  readonly bot?: boolean;
}
