import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditAction, type AuditEvent } from '../../../src/model/audit-event.ts';
import { refusedCallDetail } from '../../../src/operations/callers/refused-call-audit.ts';
import { AUDIT_APPENDED } from '../../../src/surfaces/agui/audit-notices.ts';
import {
  ACTION_WORDS,
  AUDIT_GROUPS,
  type AuditGroup,
  actionsOf,
  entryApp,
  entryWords,
  GROUP_OF,
  REFUSAL_WORDS,
  refusalWords,
} from '../../../web/app/src/audit-words.ts';

// The activity log in the person's words (issue 26, item 3): every action of the model has one
// group and its words; every entry names its app; every refusal says why.

const naming = {
  appOfClient: (id: string) => ({ 'client-ff': 'Fragrance Finder', 'client-tp': 'Trip Planner' })[id] ?? id,
  appOfGrant: (id: string) => (id === 'ppx:grant:g1' ? 'Fragrance Finder' : undefined),
};

const event = (over: Partial<AuditEvent>): AuditEvent => ({
  event_id: 'ppx:event:1',
  at: '2027-03-12T14:05:00.000Z',
  subject_id: 'sub',
  actor: { kind: 'grantee', id: 'client-ff' },
  action: 'read',
  claim_keys: [],
  outcome: 'ok',
  ...over,
});

describe('activity log groups', () => {
  it('puts every action of the model in exactly one of a handful of groups', () => {
    const groups = Object.keys(AUDIT_GROUPS) as AuditGroup[];
    assert.ok(groups.length >= 4 && groups.length <= 6, `${groups.length} groups`);
    for (const action of AuditAction.options) {
      assert.ok(groups.includes(GROUP_OF[action]), `${action} has a group`);
      assert.equal(groups.filter((g) => actionsOf(g).includes(action)).length, 1, `${action} in one group`);
    }
    assert.deepEqual(Object.keys(GROUP_OF).sort(), [...AuditAction.options].sort());
    // A group is one run of listings: never more than a run's 20 actions.
    for (const g of groups) assert.ok(actionsOf(g).length > 0 && actionsOf(g).length <= 20, g);
    assert.deepEqual(actionsOf('refused'), ['denied']);
  });

  it('has words for every action, none in spec terms', () => {
    for (const action of AuditAction.options) {
      const words = ACTION_WORDS[action];
      assert.ok(words.length > 0, action);
      assert.doesNotMatch(words, /grant|token|scope|claim|audit|_/i, `${action}: ${words}`);
    }
  });
});

describe('activity log entries', () => {
  it('names the app of the person’s own entries, by the grant they name', () => {
    const e = event({ actor: { kind: 'subject', id: 'sub' }, action: 'revoke', grant_id: 'ppx:grant:g1' });
    assert.equal(entryWords(e, naming), 'You ended Fragrance Finder’s access.');
    assert.equal(entryWords({ ...e, action: 'grant_created' }, naming), 'You gave Fragrance Finder access.');
    const rejected = event({
      actor: { kind: 'subject', id: 'sub' },
      action: 'consent_rejected',
      detail: 'consent request ppx:grant_request:r of client-tp rejected',
    });
    assert.equal(entryApp(rejected, naming), 'Trip Planner');
    assert.equal(entryWords(rejected, naming), 'You said no to Trip Planner.');
  });

  it('names the app that acted', () => {
    assert.equal(entryWords(event({}), naming), 'Fragrance Finder read your preferences.');
    assert.equal(
      entryWords(event({ action: 'revoke', grant_id: 'ppx:grant:g1' }), naming),
      'Fragrance Finder gave up its access.',
    );
  });

  it('says why each refusal was refused', () => {
    const refused = (detail: string) =>
      entryWords(event({ action: 'denied', outcome: 'denied', detail }), naming);
    assert.equal(
      refused(refusedCallDetail('grant_revoked')),
      'Fragrance Finder was refused: its access had been ended.',
    );
    assert.equal(
      refused(refusedCallDetail('grant_expired')),
      'Fragrance Finder was refused: its access had run out.',
    );
    assert.equal(
      refused('read_claims: insufficient_scope'),
      'Fragrance Finder was refused: it asked for something outside what you allowed it to see.',
    );
    assert.equal(
      refused('propose_updates: rate_limited'),
      'Fragrance Finder was refused: it asked too often.',
    );
    assert.equal(refused('something odd'), 'Fragrance Finder was refused: the reason was not recorded.');
    for (const [code, words] of Object.entries(REFUSAL_WORDS)) {
      assert.equal(refusalWords({ action: 'denied', detail: `x: ${code}` }), words);
    }
    assert.match(
      entryWords(
        event({
          action: 'refresh_reuse',
          outcome: 'denied',
          detail: 'a spent refresh token was presented again',
        }),
        naming,
      ),
      /^Fragrance Finder’s access was stopped to be safe: an old key was used again/,
    );
    assert.match(
      entryWords(
        event({
          action: 'revoke',
          outcome: 'denied',
          detail: 'an authorization code was presented again after its exchange; the grant was revoked',
        }),
        naming,
      ),
      /^Fragrance Finder’s access was ended: a one-time sign-in code was used again/,
    );
  });

  it('names the page’s live notice as the stream sends it', async () => {
    const { readFile } = await import('node:fs/promises');
    const page = await readFile(new URL('../../../web/app/src/review-stream.ts', import.meta.url), 'utf8');
    assert.ok(page.includes(`'${AUDIT_APPENDED}'`));
  });
});
