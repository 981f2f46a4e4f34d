import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { PairwiseIds } from '../../../src/auth/pairwise.ts';

const SECRET = Buffer.alloc(32, 7).toString('base64url');
const OTHER_SECRET = Buffer.alloc(32, 8).toString('base64url');
const SUBJECT = 'did:example:user-demo-0001';
const FORMAT = /^ppx:subject:[A-Za-z0-9_-]{27}$/;

describe('PairwiseIds', () => {
  const ids = new PairwiseIds(SECRET);

  it('subject ids look like ppx:subject:<27 base64url chars>', () => {
    assert.match(ids.subject(SUBJECT, 'fragrance-demo'), FORMAT);
    assert.match(ids.profile('ppx:profile:demo-0001', 'fragrance-demo'), /^ppx:profile:[A-Za-z0-9_-]{27}$/);
  });

  it('stable per (subject, client), across instances with the same secret', () => {
    const a = ids.subject(SUBJECT, 'fragrance-demo');
    assert.equal(ids.subject(SUBJECT, 'fragrance-demo'), a);
    assert.equal(new PairwiseIds(SECRET).subject(SUBJECT, 'fragrance-demo'), a);
  });

  it('different across clients', () => {
    assert.notEqual(ids.subject(SUBJECT, 'fragrance-demo'), ids.subject(SUBJECT, 'travel-demo'));
    assert.notEqual(
      ids.profile('ppx:profile:p', 'fragrance-demo'),
      ids.profile('ppx:profile:p', 'travel-demo'),
    );
  });

  it('different across subjects for one client', () => {
    assert.notEqual(ids.subject('did:example:a', 'c'), ids.subject('did:example:b', 'c'));
  });

  it('different across secrets', () => {
    assert.notEqual(ids.subject(SUBJECT, 'c'), new PairwiseIds(OTHER_SECRET).subject(SUBJECT, 'c'));
  });

  it('subject and profile handles of the same id differ', () => {
    const s = ids.subject('x', 'c').split(':')[2];
    const p = ids.profile('x', 'c').split(':')[2];
    assert.notEqual(s, p);
  });

  it('swapping subject and client gives a different id', () => {
    assert.notEqual(ids.subject('alpha', 'beta'), ids.subject('beta', 'alpha'));
  });

  it('never contains the input id or the client id', () => {
    for (let i = 0; i < 200; i++) {
      const subject = `user-${randomBytes(6).toString('hex')}`;
      const id = ids.subject(subject, 'fragrance-demo');
      assert.equal(id.includes(subject), false);
      assert.equal(id.includes('user-'), false);
      assert.equal(id.includes('fragrance-demo'), false);
      const prof = ids.profile(`ppx:profile:${subject}`, 'c');
      assert.equal(prof.includes(subject), false);
    }
  });

  it('1000 subjects under one client give 1000 distinct ids', () => {
    const set = new Set(Array.from({ length: 1000 }, (_, i) => ids.subject(`did:example:${i}`, 'c')));
    assert.equal(set.size, 1000);
  });
});
