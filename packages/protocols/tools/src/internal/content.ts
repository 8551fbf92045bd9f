import { canonicalJson } from '@parley/core';
import { contentBytes } from './json-bytes.js';

// What makes two proposals the same call: the canonical text of the tool and its arguments,
// measured when the call comes in and written only when something needs it.

/** `canonicalJson({ tool, args })`: the content that makes two proposals the same call. */
export function contentOf(tool: string, args: unknown): string {
  return canonicalJson({ args, tool }); // written in key order, so canonicalJson takes its JSON.stringify path
}

/** The UTF-8 length of a text, without encoding it (a high surrogate and what follows count 4). */
export function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}

/**
 * A call's content, `canonicalJson({ tool, args })` of the call as proposed, and its UTF-8 length.
 * An upper bound of the length is taken when the call comes in (it reads no string); the exact
 * length is measured only when the bound is not enough for a cap, and the text is written only
 * when something needs it (an id that comes again, the same content under another id, a
 * snapshot, a store). Each is kept once known.
 */
export class CallContent {
  // Declared, not defined: assigned once in the constructor (a defined field is written twice).
  declare readonly tool: string;
  declare readonly args: unknown;
  /** UTF-8 bytes of the text at most (exactly, when `text` is given). */
  declare readonly bound: number;
  declare private written: string | undefined;
  declare private measured: number | undefined;
  constructor(tool: string, args: unknown, bound: number, text?: string) {
    this.tool = tool;
    this.args = args;
    this.bound = bound;
    this.written = text;
    this.measured = text === undefined ? undefined : bound;
  }

  /** The canonical text, written once. */
  get text(): string {
    if (this.written === undefined) this.written = contentOf(this.tool, this.args);
    return this.written;
  }

  /** UTF-8 bytes of the text, measured once (without writing it). */
  get bytes(): number {
    if (this.measured === undefined) this.measured = contentBytes(this.tool, this.args, true);
    return this.measured;
  }

  /** Whether `other` is the same content: equal texts. */
  same(other: CallContent): boolean {
    return this === other || this.text === other.text;
  }
}

/** A content known by its text (read from a snapshot or a store). */
export function contentFromText(tool: string, args: unknown, text: string): CallContent {
  return new CallContent(tool, args, utf8Length(text), text);
}

/** The content of a call that is refused before its shape is known. */
export const NO_CONTENT = new CallContent('', undefined, 0, '');
