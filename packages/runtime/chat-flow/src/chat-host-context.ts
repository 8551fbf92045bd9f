// The context a chat-flow host's callbacks get for one turn: a class, its `data` a getter on the
// prototype (an object literal with a getter costs a dictionary object per turn), its ways to write
// set by the turn as closures (so they work detached from the object, as they always have).
import type { ChatContext } from './chat-host-types.js';
import { isRecord } from './internal/record.js';
import type { StoredFlowSession } from './stored-session-types.js';

/** @internal The host's data of a turn, as the context reads it. */
export interface TurnData<TData> {
  /** The host's data once `split`; until then the record's data, ledger included (a write replaces it). */
  data: TData;
  split: boolean;
}

/** @internal The host's data of a turn: the record's data less `chatFlow`, split off when first asked for. */
export function hostData<TData>(turn: TurnData<TData>): TData {
  if (turn.split) return turn.data;
  turn.split = true;
  const raw = turn.data;
  if (isRecord(raw)) {
    const { chatFlow: _ledger, ...rest } = raw;
    turn.data = rest as TData;
  }
  return turn.data;
}

/** @internal A turn's context; the turn sets its ways to write right after creating it. */
export class TurnContext<TStep extends string, TContext, TData>
  implements ChatContext<TStep, TContext, TData>
{
  readonly #turn: TurnData<TData>;
  readonly id: string;
  readonly session: StoredFlowSession<TStep, TContext, TData>;
  setData!: ChatContext<TStep, TContext, TData>['setData'];
  submit!: ChatContext<TStep, TContext, TData>['submit'];
  save!: ChatContext<TStep, TContext, TData>['save'];
  effect!: ChatContext<TStep, TContext, TData>['effect'];
  ask!: ChatContext<TStep, TContext, TData>['ask'];

  constructor(turn: TurnData<TData>, session: StoredFlowSession<TStep, TContext, TData>) {
    this.#turn = turn;
    this.id = session.id;
    this.session = session;
  }

  get data(): TData {
    return hostData(this.#turn);
  }
}
