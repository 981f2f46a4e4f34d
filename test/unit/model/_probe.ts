import { Claim } from '../../../src/model/claim.ts';
import { Profile } from '../../../src/model/profile.ts';
import { DiscoveryCard } from '../../../src/model/discovery-card.ts';
import { officialErrors, readOfficialExample } from '../../support/official-schemas.ts';
const p = readOfficialExample('profile-basic.json') as any;
const c = p.claims[0];
const t = (name: string, s: any, o: any, data: any) => console.log(name, 'zod', s.safeParse(data).success, 'official', officialErrors(o, data).length === 0);
const { value, ...noValue } = c;
t('no value', Claim, 'claim', noValue);
t('value undefined', Claim, 'claim', { ...c, value: undefined });
t('value null', Claim, 'claim', { ...c, value: null });
for (const ts of ['2026-04-06T18:05:00', '2026-04-06 18:05:00Z', '2026-04-06t18:05:00z', '2026-04-06T23:59:60Z', '2026-04-06T18:05:00.123456789Z', '2026-04-06T18:05:00+05:30', '2026-02-30T18:05:00Z', '2026-04-06T18:05Z', '2026-04-06T24:00:00Z'])
  t('created_at ' + ts, Profile, 'profile', { ...p, created_at: ts });
const card = readOfficialExample('discovery-card.json') as any;
for (const u of ['urn:isbn:123', 'not a url', 'http://', 'https://x.example/a b', 'ftp://x', '//x.example', 'mailto:a@b'])
  t('base_url ' + u, DiscoveryCard, 'discovery-card', { ...card, base_url: u });
t('retention 1.0', Profile, 'profile', { ...p, default_policy: { retention_days: 1.0 } });
t('ext extra', Profile, 'profile', { ...p, extensions: [{ namespace: 'x', version: '1', extra: 1 }] });
t('ext ns number', Profile, 'profile', { ...p, extensions: [{ namespace: 1, version: '1' }] });
t('confidence NaN-ish string', Claim, 'claim', { ...c, confidence: '0.5' });
t('empty claim_id body', Claim, 'claim', { ...c, claim_id: 'ppx:claim:' });
t('claim id newline', Claim, 'claim', { ...c, claim_id: 'ppx:claim:abc\n' });
