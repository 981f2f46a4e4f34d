import { pruneAuditLog } from '../operations/audit/retention.ts';
import { COMMON_OPTIONS, configFrom, parse, usage } from './args.ts';
import { withProvider } from './open-provider.ts';

export const AUDIT_HELP = `ppx audit prune --older-than-days N     removes audit events older than N days (default: the
                                         retention PPX_AUDIT_RETENTION_DAYS), the key lists they
                                         leave unused and spent refresh tokens; safe while serving`;

export async function auditCommand(argv: string[]): Promise<number> {
  const args = parse(argv, { ...COMMON_OPTIONS, 'older-than-days': { type: 'string' } });
  if (!args.ok) return usage('audit', AUDIT_HELP, args.message);
  const { values: v, positionals } = args.value;
  if (v.help) return usage('audit', AUDIT_HELP);
  if (positionals[0] !== 'prune' || positionals.length > 1) {
    return usage(
      'audit',
      AUDIT_HELP,
      positionals[0] === undefined
        ? 'say what to do: prune'
        : `unknown subcommand "${positionals.join(' ')}"`,
    );
  }
  const days = v['older-than-days'];
  const config = configFrom(v, days !== undefined ? { auditRetentionDays: days } : {});
  if (typeof config === 'string')
    return usage('audit', AUDIT_HELP, config.replace('audit retention', '--older-than-days'));
  const retention = config.auditRetentionDays;
  if (retention === undefined) {
    return usage('audit', AUDIT_HELP, 'say how old an event must be to go: --older-than-days N');
  }
  return withProvider('audit', config, async (deps) => {
    const r = await pruneAuditLog(deps, retention);
    console.log(
      `removed ${r.events} audit events from before ${r.before}, ${r.keySets} unused key lists, ` +
        `${r.refreshTokens} spent refresh tokens`,
    );
    return 0;
  });
}
