import type { ConsentGrant } from '../../../src/model/consent-grant.ts';

// Several grants of one app are shown as one app with several permissions (issue 26: five
// identical cards of one app said nothing the first did not).

/** The grants by app, in the order each app first appears (newest grant first). */
export function byApp(grants: readonly ConsentGrant[]): Map<string, ConsentGrant[]> {
  const apps = new Map<string, ConsentGrant[]>();
  for (const grant of grants) {
    const own = apps.get(grant.grantee_id) ?? [];
    own.push(grant);
    apps.set(grant.grantee_id, own);
  }
  return apps;
}
