// The methods the server answers at a path, from its own route table, for the Allow header of a
// 405 (RFC 9110 §15.5.6: the resource exists, the method does not). Every surface's routes count:
// a POST to /healthz or a PUT to /oauth/token is 405 with what is allowed, not 404 as if nothing
// were there. Middleware (method ALL) is not a route.

export interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

const patterns = new Map<string, RegExp>();

/** A Hono route path as a regular expression: `:name` is one segment, `*` anything. */
function patternOf(path: string): RegExp {
  let pattern = patterns.get(path);
  if (pattern === undefined) {
    const source = path
      .split('/')
      .map((segment) =>
        segment.startsWith(':')
          ? '[^/]+'
          : segment
              .split('*')
              .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
              .join('.*'),
      )
      .join('/');
    pattern = new RegExp(`^${source}$`);
    patterns.set(path, pattern);
  }
  return pattern;
}

/** The methods of `routes` that match `path`, sorted; HEAD wherever GET is (Hono answers it). */
export function allowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (route.method === 'ALL') continue;
    if (patternOf(route.path).test(path)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
