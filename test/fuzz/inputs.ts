import { baseDraft, type DraftContext, render } from './draft.ts';
import type { Fixtures } from './fixtures.ts';
import { GENERATORS } from './generators.ts';
import { inputSeed, Rand } from './rand.ts';
import { TARGETS, type Target } from './targets.ts';
import type { RawRequest } from './wire.ts';

// Input number `index` of run `seed`: a target (weighted), a generator among those that apply
// to it, a careful client's request for the target, broken by the generator. A function of
// (seed, index) and the fixtures' shape alone.

export interface Input {
  readonly index: number;
  readonly target: Target;
  readonly generator: string;
  readonly credential: string;
  /** A detail of the generator's choice (the JWT flaw), for the report. */
  readonly note?: string;
  readonly request: RawRequest;
}

/** The web app's pages need its bundle; without one they answer 503 by design (docs/web-app.md). */
const NEEDS_BUNDLE = new Set([
  '/app',
  '/app/access',
  '/app/history',
  '/app/activity',
  '/app/data',
  '/app/assets/:name',
]);

export function targetsFor(fx: Fixtures): readonly Target[] {
  return fx.assets.length > 0 ? TARGETS : TARGETS.filter((t) => !NEEDS_BUNDLE.has(t.route));
}

export function makeInput(seed: number, index: number, fx: Fixtures, targets: readonly Target[]): Input {
  const rand = new Rand(inputSeed(seed, index));
  const target = rand.weighted(targets.map((t) => [t, t.weight] as const));
  const generator = rand.weighted(
    GENERATORS.filter((g) => g.applies(target)).map((g) => [g, g.weight] as const),
  );
  const ctx: DraftContext = { rand, fx, target, destructive: false };
  const draft = baseDraft(ctx);
  generator.apply(ctx, draft);
  return {
    index,
    target,
    generator: generator.name,
    credential: generator.name === 'bad-jwt' ? 'forged token' : draft.credential,
    ...(ctx.note !== undefined ? { note: ctx.note } : {}),
    request: render(draft, fx),
  };
}
