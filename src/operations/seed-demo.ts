import { registerClient } from './clients.ts';
import { DEMO_CLIENTS, demoProfile } from './demo-profile.ts';
import type { Deps } from './deps.ts';
import { importProfile } from './import-profile.ts';

/** Seeds the demo subject and clients when the store holds no profile yet. Returns whether it did. */
export async function seedDemoIfEmpty(deps: Deps): Promise<boolean> {
  if ((await deps.store.countProfiles()) > 0) return false;
  await seedDemo(deps);
  return true;
}

export async function seedDemo(deps: Deps): Promise<void> {
  for (const c of DEMO_CLIENTS) {
    const r = await registerClient(deps, { ...c, redirect_uris: [...c.redirect_uris] });
    if (!r.ok) throw new Error(r.error.description);
  }
  const doc = { ...demoProfile(deps.clock()), provider_id: deps.provider.providerId };
  const r = await importProfile(deps, doc, { replace: true });
  if (!r.ok) throw new Error(r.error.description);
}
