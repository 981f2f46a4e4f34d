import { appWords, type ShownApp } from '../../../src/model/client.ts';

// The names of the apps the page shows (GET /app/apps.json, src/surfaces/web/app-routes.ts),
// asked once per client id, in the words every page uses (model/client.ts#appWords): a name an
// app chose for itself is its own claim, and an app the operator did not register shows its host.

const known = new Map<string, string>();
const asked = new Set<string>();

/** The app's name as the page shows it, or its registered id while the name is unknown. */
export function appName(clientId: string): string {
  return known.get(clientId) ?? clientId;
}

export function appNames(): Record<string, string> {
  return Object.fromEntries(known);
}

/** Looks up the names not asked for yet; resolves true when one was learned. */
export async function learnAppNames(clientIds: Iterable<string>): Promise<boolean> {
  const ids = [...new Set(clientIds)].filter((id) => !asked.has(id));
  if (ids.length === 0) return false;
  for (const id of ids) asked.add(id);
  const query = new URLSearchParams(ids.map((id) => ['id', id]));
  try {
    const res = await fetch(`/app/apps.json?${query}`, { headers: { accept: 'application/json' } });
    if (!res.ok) return false;
    const body = (await res.json()) as { apps: Record<string, ShownApp> };
    for (const [id, app] of Object.entries(body.apps)) known.set(id, appWords(app));
    return Object.keys(body.apps).length > 0;
  } catch {
    for (const id of ids) asked.delete(id);
    return false;
  }
}
