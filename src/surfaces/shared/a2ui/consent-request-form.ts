import type { GrantRequestDraft } from '../../../model/grant-request.ts';
import type { WritebackPolicy } from '../../../model/vocabulary.ts';
import { allowedNarrowings } from '../../../operations/consent/narrowing-choices.ts';
import {
  CROSS_DOMAIN_WORDS,
  domainWords,
  keyWords,
  namespaceWords,
  operationWords,
  purposeWords,
} from '../describe.ts';
import { WRITEBACK_WORDS } from '../writeback-words.ts';
import { button, card, checkBox, choice, column, dateInput, row, text } from './components.ts';
import { objectContents } from './data-model.ts';
import { idsFor, surfaceIdFor } from './ids.ts';
import type { Component, SurfaceParts } from './messages.ts';
import { dayWords, relativeWords } from './words.ts';

// ConsentRequestForm (bindings/a2ui.md): what an app asks for, every field editable before the
// person decides, and approve / edit / reject (WIRE-NOTES §7: the interrupt's actions). Editing
// can only narrow: a box per purpose, area, kind and key asked for (ticked as asked), an earlier
// expiry, and stricter policies only (policy/narrowing.ts#allowedNarrowings).
//
// Two data models: `/consent_request` is the request as the app made it
// ({grant_request_id, client_id, grant_draft}), unmodified; `/choice` is what the controls write
// (boxes by position: `/choice/purposes/0` is grant_draft.purposes[0]; expiry as a date;
// the two policies as one-element lists, as MultipleChoice writes them).
//
// Card -> Column [title, intro, section per field (Column [heading, hint?, controls…]),
//                 actions Row [approve, edit, reject]]

export interface ConsentRequest {
  readonly grant_request_id: string;
  readonly client_id: string;
  readonly grant_draft: GrantRequestDraft;
}

export function consentRequestForm(
  request: ConsentRequest,
  clientName: string | undefined,
  now: Date,
): SurfaceParts {
  const surfaceId = surfaceIdFor('consent', request.grant_request_id);
  const id = idsFor(surfaceId);
  const draft = request.grant_draft;
  const parts: Component[] = [];
  const body: string[] = [];
  const section = (name: string, heading: string, controls: Component[], hint?: string) => {
    const head = [text(id(`${name}-heading`), heading, 'h4')];
    if (hint !== undefined) head.push(text(id(`${name}-hint`), hint, 'caption'));
    parts.push(
      ...head,
      ...controls,
      column(
        id(name),
        [...head, ...controls].map((c) => c.id),
      ),
    );
    body.push(id(name));
  };
  const boxes = (name: string, items: readonly string[], words: (x: string) => string) =>
    items.map((x, i) => checkBox(id(`${name}-${i}`), words(x), { path: `/choice/${name}/${i}` }));

  const app = clientName ?? 'An app';
  parts.push(
    text(id('title'), `${app} asks to use your preferences`, 'h3'),
    text(
      id('intro'),
      'Untick anything you do not want to share. You can give less than it asks for, never more.',
    ),
  );
  body.push(id('title'), id('intro'));
  section('purposes', 'What for', boxes('purposes', draft.purposes, purposeWords));
  section('domains', 'In which areas of your life', boxes('domains', draft.allowed_domains, domainWords));
  section(
    'namespaces',
    'Which kinds of preferences',
    boxes('namespaces', draft.allowed_namespaces, (n) => namespaceWords(n).title),
  );
  if (draft.allowed_claim_keys !== undefined) {
    section(
      'keys',
      'Which preferences',
      boxes('keys', draft.allowed_claim_keys, (k) => keyWords(k).name),
    );
  }
  section(
    'operations',
    'What it may do with them',
    boxes('operations', draft.allowed_operations, operationWords),
  );
  const once = draft.access_mode === 'single_use' ? ', and for one use only' : '';
  section(
    'expiry',
    'For how long',
    [dateInput(id('expiry-date'), { path: '/choice/expires_at' })],
    `It asks until ${dayWords(draft.expires_at)} (${relativeWords(draft.expires_at, now)})${once}. You can choose an earlier day.`,
  );
  section('cross', 'Using them in other areas', [
    choice(
      id('cross-choice'),
      { path: '/choice/cross_domain_transfer' },
      allowedNarrowings('cross_domain_transfer', draft.cross_domain_transfer).map((v) => ({
        value: v,
        label: CROSS_DOMAIN_WORDS[v] ?? v,
      })),
    ),
  ]);
  section('writeback', 'Changes to your profile', [
    choice(
      id('writeback-choice'),
      { path: '/choice/writeback_policy' },
      allowedNarrowings('writeback_policy', draft.writeback_policy).map((v) => ({
        value: v,
        label: WRITEBACK_WORDS[v as WritebackPolicy] ?? v,
      })),
    ),
  ]);

  // approve takes the request as asked; edit takes it narrowed by /choice; reject declines.
  const ref = { key: 'grant_request_id', value: { literalString: request.grant_request_id } };
  const actions = [
    ['approve', 'Allow as asked', [ref]],
    ['edit', 'Allow with my changes', [ref, { key: 'choice', value: { path: '/choice' } }]],
    ['reject', 'Do not allow', [ref]],
  ] as const;
  for (const [name, label, context] of actions) {
    parts.push(
      text(id(`${name}-label`), label),
      button(id(name), id(`${name}-label`), { name, context }, name === 'approve'),
    );
  }
  parts.push(
    row(
      id('actions'),
      actions.map(([name]) => id(name)),
    ),
  );
  body.push(id('actions'));
  parts.unshift(card(id('card'), id('body')), column(id('body'), body));
  return {
    surfaceId,
    root: id('card'),
    components: parts,
    data: [
      { path: '/consent_request', contents: objectContents(request) },
      { path: '/choice', contents: objectContents(initialChoice(draft)) },
    ],
  };
}

/** The controls' starting state: everything as asked. */
function initialChoice(draft: GrantRequestDraft): Record<string, unknown> {
  const ticked = (items: readonly string[]) => Object.fromEntries(items.map((_, i) => [String(i), true]));
  return {
    purposes: ticked(draft.purposes),
    domains: ticked(draft.allowed_domains),
    namespaces: ticked(draft.allowed_namespaces),
    ...(draft.allowed_claim_keys !== undefined ? { keys: ticked(draft.allowed_claim_keys) } : {}),
    operations: ticked(draft.allowed_operations),
    expires_at: draft.expires_at.slice(0, 10),
    cross_domain_transfer: [draft.cross_domain_transfer],
    writeback_policy: [draft.writeback_policy],
  };
}
