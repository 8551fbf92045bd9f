// Text from the store made inert: bounded, with bidi and control characters shown, never obeyed.

/**
 * Bidi embeddings, overrides, isolates and marks (U+061C, U+200E/F, U+202A–E, U+2066–9) and every
 * C0/C1 control except tab and newline: everything outside the ranges kept below.
 */
const UNSAFE = /[^\t\n\u0020-\u007e\u00a0-\u061b\u061d-\u200d\u2010-\u2029\u202f-\u2065\u206a-\uffff]/g;

/**
 * Bounds `text` to `max` characters (with a marker saying how many were cut) and replaces every
 * bidi control and control character by a visible `[U+XXXX]`, so a string cannot reorder the text
 * around it or hide what it says.
 */
export function clean(text: string, max: number): string {
  let head = text;
  let marker = '';
  if (text.length > max) {
    const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max; // never split a pair
    head = text.slice(0, end);
    marker = ` … [${text.length - end} more characters]`;
  }
  return (
    head.replace(UNSAFE, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`) + marker
  );
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
