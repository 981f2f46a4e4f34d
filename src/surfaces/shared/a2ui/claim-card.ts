import { type Claim, qualifiedKey } from '../../../model/claim.ts';
import type { ProposalRecord } from '../../../model/proposal.ts';
import { keyWords, levelWords, valueWords } from '../describe.ts';
import { editProblem } from '../value-kind.ts';
import { button, card, column, icon, list, row, slider, text } from './components.ts';
import { objectContents } from './data-model.ts';
import { idsFor, surfaceIdFor } from './ids.ts';
import type { ActionContextEntry, Component, SurfaceParts } from './messages.ts';
import { confidenceWords, dayWords, expiryWords, isStated, sourceWords } from './words.ts';

// ClaimCard (bindings/a2ui.md): a claim's name, its value in a widget that suits its type, where
// it came from and how sure, and confirm / edit / reject. The same card shows a proposal (a claim
// an app suggested), whose actions decide the proposal rather than the stored claim.
//
// Card -> Column [title, about?, proposed-by?, value, source Row [icon, words], sure, dates?,
//                 status?, actions Row [confirm, edit, reject]]

/** The card of a stored claim; its data model is the claim, at `/claim`. */
export function claimCard(claim: Claim, now: Date): SurfaceParts {
  const surfaceId = surfaceIdFor('claim', claim.claim_id);
  const ref: ActionContextEntry[] = [{ key: 'claim_id', value: { literalString: claim.claim_id } }];
  return build(surfaceId, claim, now, { path: '/claim', object: claim, ref, lines: [] });
}

/** The card of a proposal; its data model is the proposal (the claim within it), at `/proposal`. */
export function proposalCard(
  proposal: ProposalRecord,
  clientName: string | undefined,
  now: Date,
): SurfaceParts {
  const surfaceId = surfaceIdFor('proposal', proposal.proposal_id);
  const ref: ActionContextEntry[] = [
    { key: 'proposal_id', value: { literalString: proposal.proposal_id } },
    { key: 'claim_id', value: { literalString: proposal.claim.claim_id } },
  ];
  const by = `Suggested by ${clientName ?? 'an app you allowed'} on ${dayWords(proposal.created_at)}`;
  return build(surfaceId, proposal.claim, now, { path: '/proposal', object: proposal, ref, lines: [by] });
}

interface Subject {
  readonly path: string;
  readonly object: object;
  readonly ref: readonly ActionContextEntry[];
  /** Lines under the title (who suggested it). */
  readonly lines: readonly string[];
}

const LABELS = {
  claim: { confirm: "Yes, that's right", edit: 'Change it', reject: "No, that's wrong" },
  proposal: { confirm: 'Accept the change', edit: 'Change it first', reject: 'Turn it down' },
} as const;

function build(surfaceId: string, claim: Claim, now: Date, subject: Subject): SurfaceParts {
  const id = idsFor(surfaceId);
  const key = qualifiedKey(claim);
  const words = keyWords(key);
  const parts: Component[] = [];
  const body: string[] = [];
  const add = (c: Component) => {
    parts.push(c);
    body.push(c.id);
  };
  add(text(id('title'), words.name, 'h3'));
  if (words.description !== undefined) add(text(id('about'), words.description, 'caption'));
  for (const [i, line] of subject.lines.entries()) add(text(id(`line-${i}`), line));

  const value = valueWidget(id, claim, key);
  parts.push(...value.components);
  body.push(value.root);

  // Stated and inferred differ in icon, words and weight: v0.8 has no badge (WIRE-NOTES §1).
  const stated = isStated(claim.source.kind);
  parts.push(
    icon(id('source-icon'), stated ? 'person' : 'help'),
    text(id('source-words'), sourceWords(claim.source.kind), stated ? 'body' : 'caption'),
  );
  add(row(id('source'), [id('source-icon'), id('source-words')]));
  add(text(id('sure'), `How sure: ${confidenceWords(claim.confidence)}`, 'caption'));
  const dates = lifecycleWords(claim, now);
  if (dates !== '') add(text(id('dates'), dates, 'caption'));
  if (claim.review?.review_status === 'pending_confirmation') {
    add(text(id('status'), 'Waiting for you to confirm it'));
  }

  const labels = subject.path === '/proposal' ? LABELS.proposal : LABELS.claim;
  const edit = value.editPath ? [{ key: 'value_percent', value: { path: value.editPath } }] : [];
  // "Change it" only where the page can change it (value-kind.ts); a proposal is changed first
  // only on its slider (suggestion-group.ts does the same).
  const editable =
    subject.path === '/proposal' ? value.editPath !== undefined : editProblem(claim) === undefined;
  const actions: Array<[keyof typeof labels, readonly ActionContextEntry[]]> = [
    ['confirm', subject.ref],
    ...(editable ? [['edit', [...subject.ref, ...edit]] as [keyof typeof labels, ActionContextEntry[]]] : []),
    ['reject', subject.ref],
  ];
  // Equal weight (issue 26 item 1): no filled "Yes, that's right" nudging the person to confirm
  // a guess; confirming, changing and saying it is wrong look alike.
  for (const [name, context] of actions) {
    parts.push(
      text(id(`${name}-label`), labels[name]),
      button(id(name), id(`${name}-label`), { name, context }, false),
    );
  }
  add(
    row(
      id('actions'),
      actions.map(([name]) => id(name)),
    ),
  );

  parts.unshift(card(id('card'), id('body')), column(id('body'), body));
  const data = [{ path: subject.path, contents: objectContents(subject.object) }];
  if (value.editPath)
    data.push({ path: '/edit', contents: [{ key: 'percent', valueNumber: value.percent }] });
  return { surfaceId, root: id('card'), components: parts, data };
}

interface ValueWidget {
  readonly root: string;
  readonly components: Component[];
  /** Set for a 0–1 value: the slider's position, which the edit action sends. */
  readonly editPath?: string;
  readonly percent: number;
}

/**
 * A widget that suits the value (bindings/a2ui.md): a slider for a 0–1 value (0 to 100, since
 * the v0.8 slider has no step), a list of rows for a map of 0–1 values (v0.8 has no chip), a
 * text for the rest (v0.8 has no badge). Every label is words, never the value's JSON.
 */
function valueWidget(id: (p: string) => string, claim: Claim, key: string): ValueWidget {
  const v = claim.value;
  const words = valueWords(v, key, claim.units);
  if (typeof v === 'number' && onZeroOneScale(claim)) {
    const percent = Math.round(v * 100);
    const components = [
      slider(id('value-slider'), 'Move it to change it', { path: '/edit/percent' }, 0, 100),
      text(id('value-words'), words),
    ];
    components.unshift(column(id('value'), [id('value-slider'), id('value-words')]));
    return { root: id('value'), components, editPath: '/edit/percent', percent };
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>).sort((a, b) => Number(b[1]) - Number(a[1]));
    const components: Component[] = [];
    const rows = entries.map(([name, level], i) => {
      components.push(
        text(id(`value-${i}-name`), valueWords(name, key)),
        text(id(`value-${i}-level`), typeof level === 'number' ? levelWords(level) : valueWords(level, key)),
        row(id(`value-${i}`), [id(`value-${i}-name`), id(`value-${i}-level`)]),
      );
      return id(`value-${i}`);
    });
    components.unshift(list(id('value'), rows));
    return { root: id('value'), components, percent: 0 };
  }
  return { root: id('value'), components: [text(id('value'), words, 'h4')], percent: 0 };
}

/** A number the person sets on a 0–100 slider: a 0–1 value (normalized, or a float in range). */
export function onZeroOneScale(claim: Claim): boolean {
  const v = claim.value as number;
  return claim.units === 'normalized_0_1' || (claim.value_type === 'float' && v >= 0 && v <= 1);
}

function lifecycleWords(claim: Claim, now: Date): string {
  const l = claim.lifecycle;
  const out: string[] = [];
  if (l?.last_confirmed_at !== undefined) out.push(`Last confirmed ${dayWords(l.last_confirmed_at)}`);
  if (l?.expires_at !== undefined) out.push(expiryWords(l.expires_at, now));
  return out.join('. ');
}
