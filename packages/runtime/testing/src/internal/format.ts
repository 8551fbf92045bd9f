/** A short, one-line description of any value for failure messages: JSON where possible, cut to `max`. */
export function describe(value: unknown, max = 200): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (value === undefined) text = 'undefined';
  else if (typeof value === 'function') text = `[function ${value.name || 'anonymous'}]`;
  else if (typeof value === 'bigint') text = `${value}n`;
  else if (value instanceof Error) text = `${value.name}: ${value.message}`;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value); // a cycle or a BigInt inside: fall back to the plain form
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Lists lines under a heading, at most `limit` of them, saying how many were left out. */
export function listLines(lines: readonly string[], limit = 20): string {
  const shown = lines.slice(0, limit).map((line, i) => `  ${i + 1}. ${line}`);
  if (lines.length > limit) shown.push(`  … and ${lines.length - limit} more`);
  return shown.join('\n');
}

/** `1 message`, `2 messages`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** A promise with its settle functions, for fakes that answer later. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T | PromiseLike<T>): void;
  reject(reason: unknown): void;
}

export function defer<T>(): Deferred<T> {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
