// What stringifyJson accepts: a fast yes/no pass, and the slow pass that names the first bad path.

/** How deep the fast pass goes before it leaves the value to the slow pass (a cycle never ends). */
const FAST_DEPTH = 128;

/**
 * Whether `value` is plain JSON, by the same rules as `findNonJson` but building no path strings
 * and keeping no set of ancestors: `depth` is how deep `value` sits, and a value nested deeper than
 * {@link FAST_DEPTH} (a cycle is) gets no as an answer. When it says no, `findNonJson` decides
 * (refuses a cycle and names the path, or finds a deep value plain).
 */
export function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth >= FAST_DEPTH) return false;
      const below = depth + 1;
      let ok = true;
      if (Array.isArray(value)) {
        for (let i = 0; ok && i < value.length; i++) ok = isPlainJson(value[i], below);
      } else {
        const proto: unknown = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null)
          ok = false; // Date, Map, class
        else {
          for (const key in value) {
            const item = (value as Record<string, unknown>)[key];
            if (item !== undefined && !isPlainJson(item, below)) {
              ok = false;
              break;
            }
          }
        }
      }
      return ok;
    }
    default:
      return false;
  }
}

export function findNonJson(value: unknown, path: string, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : path;
    case 'object': {
      if (value === null) return undefined;
      if (seen.has(value)) return path;
      const proto: unknown = Object.getPrototypeOf(value);
      if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return path; // Date, Map, class
      seen.add(value);
      const entries = Array.isArray(value)
        ? value.map((item, i) => [`${path}[${i}]`, item] as const)
        : Object.entries(value).map(([key, item]) => [path === '' ? key : `${path}.${key}`, item] as const);
      for (const [childPath, item] of entries) {
        if (item === undefined && !Array.isArray(value)) continue; // JSON drops undefined properties
        const bad = findNonJson(item, childPath, seen);
        if (bad !== undefined) return bad;
      }
      seen.delete(value);
      return undefined;
    }
    default:
      return path;
  }
}
