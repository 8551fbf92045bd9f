// What stringifyJson accepts: a fast yes/no pass, and the slow pass that names the first bad path.

/**
 * Whether `value` is plain JSON, by the same rules as `findNonJson` but building no path strings;
 * `ancestors` holds the objects on the way down, to refuse a cycle. When it says no, `findNonJson`
 * decides (and names the path).
 */
export function isPlainJson(value: unknown, ancestors: object[] | undefined): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (ancestors?.includes(value)) return false;
      const stack = ancestors ?? [];
      stack.push(value);
      let ok = true;
      if (Array.isArray(value)) {
        for (let i = 0; ok && i < value.length; i++) ok = isPlainJson(value[i], stack);
      } else {
        const proto: unknown = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null)
          ok = false; // Date, Map, class
        else {
          for (const key in value) {
            const item = (value as Record<string, unknown>)[key];
            if (item !== undefined && !isPlainJson(item, stack)) {
              ok = false;
              break;
            }
          }
        }
      }
      stack.pop();
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
