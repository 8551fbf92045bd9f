import { ChatSdkAdapterError } from '../errors.js';
import type { TeamsStandIn } from './teams.js';

/**
 * Makes a Chat SDK Teams adapter (`createTeamsAdapter(…)` of `@chat-adapter/teams`) trust the
 * stand-in's tokens: the Teams SDK App under it validates every activity's JWT against the keys of
 * its cloud's OpenID metadata, and `@chat-adapter/teams` 4.41 has no option for that cloud, so this
 * sets the App's `cloud` to the stand-in's metadata URL and issuer. Call it before the bot
 * initializes (the App reads its cloud then). Its JWT validation itself stays on.
 *
 * @throws ChatSdkAdapterError `invalid_argument` when the adapter has no Teams SDK App with a cloud.
 * @example
 * ```ts
 * import { createTeamsAdapter } from '@chat-adapter/teams';
 * import { createTeamsStandIn, trustTeamsStandIn } from '@parley/chat-sdk/testing';
 * import { ConsoleLogger } from 'chat';
 *
 * const standIn = await createTeamsStandIn();
 * const logger = new ConsoleLogger('silent');
 * const teams = createTeamsAdapter({ ...standIn.adapterConfig, logger });
 * trustTeamsStandIn(teams, standIn);
 * await standIn.close();
 * ```
 */
export function trustTeamsStandIn(adapter: object, standIn: Pick<TeamsStandIn, 'cloud'>): void {
  const app = (adapter as { readonly app?: unknown }).app; // protected in its types: read by shape
  const cloud = (app as { cloud?: unknown } | undefined)?.cloud;
  if (typeof cloud !== 'object' || cloud === null) {
    throw new ChatSdkAdapterError('invalid_argument', 'trustTeamsStandIn needs a Chat SDK Teams adapter');
  }
  Object.assign(app as object, { cloud: Object.freeze({ ...cloud, ...standIn.cloud }) });
}
