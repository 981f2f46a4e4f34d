import { registerClient } from '../accounts/clients.ts';
import { createSubject } from '../accounts/subjects-and-sessions.ts';
import type { Deps } from '../deps.ts';
import { importProfile } from '../export-import/import-profile.ts';
import { DEMO_CLIENTS, DEMO_SUBJECT, demoProfile } from './demo-profile.ts';

/** Seeds the demo subject and clients when the store holds no profile yet. Returns whether it did. */
export async function seedDemoIfEmpty(deps: Deps): Promise<boolean> {
  if ((await deps.store.countProfiles()) > 0) return false;
  await seedDemo(deps);
  await seedDemoLogin(deps);
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

/** The demo subject's sign-in for the consent page. Local demo only: the password is public. */
export const DEMO_LOGIN = { username: 'demo', password: 'demo-password' } as const;

/**
 * Gives the demo subject the demo login when it has none yet (and the username is free).
 * Kept apart from `seedDemo`, which tests use to seed profiles without any login. Returns
 * whether it created the login.
 */
export async function seedDemoLogin(deps: Deps): Promise<boolean> {
  if (await deps.store.getSubject(DEMO_SUBJECT)) return false;
  const r = await createSubject(deps, { ...DEMO_LOGIN, subject_id: DEMO_SUBJECT });
  return r.ok;
}
