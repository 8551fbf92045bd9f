// What every view reads: the store, the clock, the prefixes, the bounds and what may be revealed.
import type { Clock, Store } from '@parley/core';
import type { PipelineDefinition } from '@parley/pipeline';
import { clean } from './text.js';

/** The resolved options every view reads. */
export interface ViewContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly pageSize: number;
  readonly maxTextLength: number;
  readonly reveal: { readonly args: boolean; readonly outputs: boolean };
  readonly confirmPrefix: string;
  readonly pipelinePrefix: string;
  readonly ledgerPrefix: string;
  readonly claimPrefixes: readonly string[];
  readonly publicKeys: Readonly<Record<string, string>> | undefined;
  readonly pipelines: readonly PipelineDefinition[];
}

/** One page of a listing as the JSON variant answers it. */
export interface ListView<T> {
  readonly ok: true;
  readonly items: readonly T[];
  /** Stored records under the prefix that could not be read (another format, corrupt data). */
  readonly refused: readonly { readonly key: string; readonly message: string }[];
  /** The cursor of the next page (`?after=`), absent on the last one. */
  readonly next?: string;
}

/** Text from the store, bounded and made inert. */
export function text(ctx: ViewContext, value: string): string {
  return clean(value, ctx.maxTextLength);
}

/** A value kept back unless `reveal` allows it: what it is and how big, never what it says. */
export function hidden(what: string, value: unknown): string {
  const size = JSON.stringify(value ?? null).length;
  return `[hidden: ${what}, ${size} characters of JSON]`;
}

/** A JSON value shown (revealed): its JSON text, bounded and made inert. */
export function shown(ctx: ViewContext, value: unknown): string {
  return text(ctx, JSON.stringify(value ?? null));
}

/** Optional text from the store, bounded and made inert when present. */
export function maybeText(ctx: ViewContext, value: string | undefined): string | undefined {
  return value === undefined ? undefined : text(ctx, value);
}
