import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grantStatusAt } from '../../../src/policy/grant-status.ts';
import { EXPIRES, grant } from '../../support/policy-fixtures.ts';

const AT_EXPIRY = new Date(EXPIRES);
const MS_BEFORE = new Date(AT_EXPIRY.getTime() - 1);
const MS_AFTER = new Date(AT_EXPIRY.getTime() + 1);

describe('grantStatusAt', () => {
  it('an active grant is active 1 ms before expires_at', () => {
    assert.equal(grantStatusAt(grant(), MS_BEFORE), 'active');
  });

  it('an active grant is expired exactly at expires_at (equal counts as expired)', () => {
    assert.equal(grantStatusAt(grant(), AT_EXPIRY), 'expired');
  });

  it('an active grant is expired 1 ms after expires_at', () => {
    assert.equal(grantStatusAt(grant(), MS_AFTER), 'expired');
  });

  it('an active grant without expires_at never expires', () => {
    const g = grant({ expires_at: undefined });
    assert.equal(grantStatusAt(g, new Date('2999-01-01T00:00:00Z')), 'active');
  });

  it('expiry compares instants, not strings (offset form of the same instant)', () => {
    const g = grant({ expires_at: '2026-07-01T14:00:00+02:00' });
    assert.equal(grantStatusAt(g, MS_BEFORE), 'active');
    assert.equal(grantStatusAt(g, AT_EXPIRY), 'expired');
  });

  it('a revoked grant stays revoked before and after expiry', () => {
    assert.equal(grantStatusAt(grant({ status: 'revoked' }), MS_BEFORE), 'revoked');
    assert.equal(grantStatusAt(grant({ status: 'revoked' }), MS_AFTER), 'revoked');
  });

  it('a pending grant stays pending, even past its expiry', () => {
    assert.equal(grantStatusAt(grant({ status: 'pending' }), MS_BEFORE), 'pending');
    assert.equal(grantStatusAt(grant({ status: 'pending' }), MS_AFTER), 'pending');
  });

  it('a grant stored as expired is expired even before its expires_at', () => {
    assert.equal(grantStatusAt(grant({ status: 'expired' }), MS_BEFORE), 'expired');
  });

  it('an unparseable expires_at fails closed (deny by default, SPEC §6.2 rule 1)', () => {
    assert.equal(grantStatusAt(grant({ expires_at: 'not-a-date' }), MS_BEFORE), 'expired');
  });
});
