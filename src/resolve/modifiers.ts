import { type Claim, namespaceOfKey, normalizeKey, qualifiedKey } from '../model/claim.ts';
import type { ContextModifier, ResolutionContext } from '../model/context-modifier.ts';
import { round4 } from './round.ts';

// Context modifiers (SPEC §5.3): when a modifier's condition matches the resolution context,
// its effect is applied to the claims it names.

/** Largest weight shift a fully confident (confidence 1) weight_adjustment modifier makes. */
export const WEIGHT_STEP = 0.15;

/**
 * SPEC §5.3 condition: every dimension must be present in the context and equal its value, or be
 * an array listing it. `{}` matches any context. A dimension the caller did not supply never
 * matches: the modifier describes a situation the caller has not claimed to be in.
 */
export function conditionMatches(
  condition: Readonly<Record<string, unknown>>,
  context: ResolutionContext,
): boolean {
  for (const [dimension, expected] of Object.entries(condition)) {
    // hasOwn, not `in`: a condition on `constructor` must not match Object.prototype.
    if (!Object.hasOwn(context, dimension)) return false;
    const actual = context[dimension];
    const ok = Array.isArray(expected) ? expected.includes(actual) : expected === actual;
    if (!ok) return false;
  }
  return true;
}

/** The namespaces a bare effect name resolves in: those of the targets, else the modifier's own. */
function scopeOf(modifier: ContextModifier): readonly string[] {
  const targets = modifier.targets ?? [];
  return [...new Set(targets.length > 0 ? targets.map(namespaceOfKey) : [modifier.namespace])];
}

/**
 * The qualified keys an effect name refers to. Qualified names (`fragrance.x`, `core.x`) name one
 * key; bare names (`x`, as in the SPEC §5.3 example) name that key within the modifier's scope,
 * so `freshness_preference` never hits a same-named key of an unrelated namespace.
 */
function keysOfName(name: string, scope: readonly string[]): string[] {
  if (name.includes('.')) return [normalizeKey(name)];
  return scope.map((ns) => qualifiedKey({ namespace: ns, key: name }));
}

function keySet(names: readonly string[] | undefined, scope: readonly string[]): ReadonlySet<string> {
  return new Set((names ?? []).flatMap((n) => keysOfName(n, scope)));
}

/** A modifier's names resolved once to qualified keys, so matching a claim is a set lookup. */
interface Matchers {
  /** Targets are always qualified keys; a bare target is a core key (WIRE-NOTES §1). */
  readonly targeted: ReadonlySet<string>;
  readonly increased: ReadonlySet<string>;
  readonly decreased: ReadonlySet<string>;
  /** Qualified key -> the override name that applies to it: a qualified name wins over a bare one. */
  readonly overrides: ReadonlyMap<string, string>;
  /** Keys named by targets, increase or decrease: what a veto removes. */
  readonly named: ReadonlySet<string>;
  /** Every key the modifier refers to, overrides included: what makes it "applied". */
  readonly touched: ReadonlySet<string>;
}

const compiled = new WeakMap<ContextModifier, Matchers>();

/** Every qualified key a modifier refers to: the claims it can change when it applies. */
export function touchedKeys(modifier: ContextModifier): ReadonlySet<string> {
  return matchersOf(modifier).touched;
}

/** A modifier's matchers, compiled once per modifier object (stored modifiers are reused read-only). */
function matchersOf(modifier: ContextModifier): Matchers {
  let m = compiled.get(modifier);
  if (m === undefined) {
    m = compile(modifier);
    compiled.set(modifier, m);
  }
  return m;
}

function compile(modifier: ContextModifier): Matchers {
  const scope = scopeOf(modifier);
  const overrides = new Map<string, string>();
  const names = Object.keys(modifier.effect.override ?? {});
  // Bare names first, then qualified ones, so a qualified name overwrites a bare one for a key.
  for (const name of [...names.filter((n) => !n.includes('.')), ...names.filter((n) => n.includes('.'))]) {
    for (const key of keysOfName(name, scope)) overrides.set(key, name);
  }
  const targeted = new Set((modifier.targets ?? []).map(normalizeKey));
  const increased = keySet(modifier.effect.increase, scope);
  const decreased = keySet(modifier.effect.decrease, scope);
  const named = new Set([...targeted, ...increased, ...decreased]);
  return {
    targeted,
    increased,
    decreased,
    overrides,
    named,
    touched: new Set([...named, ...overrides.keys()]),
  };
}

/**
 * SPEC §5.3 weight_adjustment: nudges a normalized weight up or down by a step scaled by the
 * modifier's confidence. Only plain numbers in [0,1] are weights; maps, strings and ints (counts,
 * which must stay integral) are left alone.
 */
function adjustWeight(claim: Claim, key: string, m: Matchers, step: number): Claim {
  const v = claim.value;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1) || claim.value_type === 'int') return claim;
  let next = v;
  if (m.increased.has(key)) next = Math.min(1, next + step);
  if (m.decreased.has(key)) next = Math.max(0, next - step);
  next = round4(next);
  return next === v ? claim : { ...claim, value: next };
}

/**
 * Claims under resolution, indexed by qualified key, so that applying a modifier costs a lookup
 * per name it carries rather than a pass over every claim.
 */
export class ClaimSet {
  readonly #claims: (Claim | undefined)[];
  readonly #keys: string[];
  readonly #byKey = new Map<string, number[]>();

  constructor(claims: readonly Claim[]) {
    this.#claims = [...claims];
    this.#keys = claims.map(qualifiedKey);
    for (const [i, key] of this.#keys.entries()) {
      const at = this.#byKey.get(key);
      if (at === undefined) this.#byKey.set(key, [i]);
      else at.push(i);
    }
  }

  /** Positions of present (not vetoed) claims whose key is in `keys`, in input order. */
  #positions(keys: ReadonlySet<string>): number[] {
    const out: number[] = [];
    for (const key of keys)
      for (const i of this.#byKey.get(key) ?? []) if (this.#claims[i] !== undefined) out.push(i);
    return out.sort((a, b) => a - b);
  }

  /**
   * Applies one modifier whose condition already matched. Returns true iff the modifier names at
   * least one present claim: callers pass only in-scope claims, so reporting a modifier that
   * touches nothing visible would leak the existence of out-of-scope preferences (SPEC §10).
   */
  apply(modifier: ContextModifier): boolean {
    const m = matchersOf(modifier);
    const touched = this.#positions(m.touched);
    if (touched.length === 0) return false;
    switch (modifier.effect_type) {
      case 'weight_adjustment': {
        const step = WEIGHT_STEP * modifier.confidence;
        for (const i of touched) this.#claims[i] = adjustWeight(this.#claims[i]!, this.#keys[i]!, m, step);
        return true;
      }
      case 'override': {
        // SPEC §5.3 override: the named claim's value is replaced. Cloned so the output never
        // aliases the modifier object (callers may mutate responses).
        const values = modifier.effect.override ?? {};
        for (const i of touched) {
          const name = m.overrides.get(this.#keys[i]!);
          if (name !== undefined)
            this.#claims[i] = { ...this.#claims[i]!, value: structuredClone(values[name]) };
        }
        return true;
      }
      case 'veto':
        // SPEC §5.3 veto: the named claims do not apply in this context at all.
        for (const i of this.#positions(m.named)) this.#claims[i] = undefined;
        return true;
      case 'suggest':
        // SPEC §5.3 suggest: advisory only; reported, values untouched.
        return true;
    }
  }

  /** The claims still present, in input order. */
  claims(): Claim[] {
    return this.#claims.filter((c): c is Claim => c !== undefined);
  }
}
