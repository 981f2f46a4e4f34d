import { type ClientRecord, operatorOrigins, type ShownApp, shownApp } from '../../model/client.ts';
import type { Deps } from '../deps.ts';

// The apps a page or an explanation names, as model/client.ts#shownApp shows them: one lookup
// for every place that puts an app's name in front of the person (issue 22 item 4).

/**
 * The shown form of each known client id (unknown ids are left out). The operator's origins are
 * read only when a metadata document needs judging, so the common case costs one read per app.
 */
export async function shownApps(
  deps: { readonly store: Pick<Deps['store'], 'getClient' | 'listClients'> },
  clientIds: Iterable<string>,
): Promise<Map<string, ShownApp>> {
  const clients: ClientRecord[] = [];
  for (const id of new Set(clientIds)) {
    const client = await deps.store.getClient(id);
    if (client) clients.push(client);
  }
  const origins = clients.some((c) => c.source === 'metadata_document')
    ? operatorOrigins(await deps.store.listClients())
    : new Set<string>();
  return new Map(clients.map((c) => [c.client_id, shownApp(c, origins)]));
}
