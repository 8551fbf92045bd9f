// The context a chat-flow host's callbacks get for one turn: a class, its `data` a getter on the
// prototype (an object literal with a getter costs a dictionary object per turn), its ways to write
// getters too, each bound to the turn the first time it is read (so they work detached from the
// object, as they always have), from one table of functions per host: a turn whose callbacks never
// write makes none.
import type { JsonValue } from '@parley/core';
import type { ChatContext } from './chat-host-types.js';
import { isRecord } from './internal/record.js';
import type { FlowSaveResult, StoredFlowSession, StoredSubmitResult } from './stored-session-types.js';

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

type Ctx<TStep extends string, TContext, TData> = ChatContext<TStep, TContext, TData>;
type More = { readonly transient?: { readonly [field: string]: JsonValue } };

/** @internal The ways a context writes, as functions of its turn: one table per host. */
export interface TurnWays<TStep extends string, TContext, TData, TTurn extends TurnData<TData>> {
  setData(turn: TTurn, data: TData): void;
  submit(
    turn: TTurn,
    ctx: Ctx<TStep, TContext, TData>,
    fields: unknown,
    more?: More,
  ): Promise<StoredSubmitResult<TStep, TContext>>;
  /** `submit`, its outcome mapped by `end` once asked (in the same reaction: one promise fewer). */
  submitThen<R>(
    turn: TTurn,
    ctx: Ctx<TStep, TContext, TData>,
    fields: unknown,
    end: (written: StoredSubmitResult<TStep, TContext>) => R | Promise<R>,
  ): Promise<R>;
  save(turn: TTurn): Promise<FlowSaveResult>;
  effect<T>(
    turn: TTurn,
    ctx: Ctx<TStep, TContext, TData>,
    name: string,
    run: () => T | Promise<T>,
  ): Promise<T>;
  ask(turn: TTurn, ctx: Ctx<TStep, TContext, TData>): Promise<void>;
}

/** @internal A turn's context. */
export class TurnContext<TStep extends string, TContext, TData, TTurn extends TurnData<TData>>
  implements Ctx<TStep, TContext, TData>
{
  readonly #turn: TTurn;
  readonly #ways: TurnWays<TStep, TContext, TData, TTurn>;
  readonly id: string;
  readonly session: StoredFlowSession<TStep, TContext, TData>;
  #setData: Ctx<TStep, TContext, TData>['setData'] | undefined;
  #submit: Ctx<TStep, TContext, TData>['submit'] | undefined;
  #save: Ctx<TStep, TContext, TData>['save'] | undefined;
  #effect: Ctx<TStep, TContext, TData>['effect'] | undefined;
  #ask: Ctx<TStep, TContext, TData>['ask'] | undefined;

  constructor(
    turn: TTurn,
    session: StoredFlowSession<TStep, TContext, TData>,
    ways: TurnWays<TStep, TContext, TData, TTurn>,
  ) {
    this.#turn = turn;
    this.#ways = ways;
    this.id = session.id;
    this.session = session;
  }

  get data(): TData {
    return hostData(this.#turn);
  }

  get setData(): Ctx<TStep, TContext, TData>['setData'] {
    this.#setData ??= (data) => this.#ways.setData(this.#turn, data);
    return this.#setData;
  }

  get submit(): Ctx<TStep, TContext, TData>['submit'] {
    this.#submit ??= (fields, more) => this.#ways.submit(this.#turn, this, fields, more);
    return this.#submit;
  }

  get save(): Ctx<TStep, TContext, TData>['save'] {
    this.#save ??= () => this.#ways.save(this.#turn);
    return this.#save;
  }

  get effect(): Ctx<TStep, TContext, TData>['effect'] {
    this.#effect ??= (name, run) => this.#ways.effect(this.#turn, this, name, run);
    return this.#effect;
  }

  get ask(): Ctx<TStep, TContext, TData>['ask'] {
    this.#ask ??= () => this.#ways.ask(this.#turn, this);
    return this.#ask;
  }
}
