import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';

// What `ppx mint` refuses instead of guessing (issue 11, item 2): a grant without namespaces,
// keys no vocabulary registers, a flag of another kind of token, and a mistyped flag.

describe('ppx mint refuses what it would otherwise guess or ignore', () => {
  let box: CliSandbox;
  before(async () => {
    box = sandbox();
    const r = await box.run(['seed', '--demo']);
    assert.equal(r.code, 0, show(r));
  });
  after(() => box.cleanup());

  /** A usage error: exit 2, one problem line on stderr, the help on stdout, no token printed. */
  async function refused(args: string[], problem: string) {
    const r = await box.run(args);
    assert.equal(r.code, 2, show(r));
    assert.equal(r.stderr, `ppx mint: ${problem}\n`);
    assert.match(r.stdout, /^ppx mint env/);
    assert.doesNotMatch(r.stdout, /access_token/);
  }

  it('mint grant without --namespaces (it used to grant core)', () =>
    refused(
      ['mint', 'grant', '--client', 'fragrance-demo'],
      '--namespaces is required for a grant (e.g. core,fragrance)',
    ));

  it('mint grant with --keys no namespace registers lists every bad one, as typed', () =>
    refused(
      [
        'mint',
        'grant',
        '--client',
        'fragrance-demo',
        '--namespaces',
        'core,fragrance',
        '--keys',
        'novelty_tolerance,core.bogus,fragrance.family_preference,fragrance.nope',
      ],
      '--keys names keys no namespace registers: core.bogus, fragrance.nope (GET /v1/extensions lists them)',
    ));

  it('a registered key spelled core.x is accepted', async () => {
    const r = await box.run([
      'mint',
      'grant',
      '--client',
      'fragrance-demo',
      '--namespaces',
      'core',
      '--keys',
      'core.novelty_tolerance',
      '--json',
    ]);
    assert.equal(r.code, 0, show(r));
    assert.ok(JSON.parse(r.stdout).access_token);
  });

  const crossed: [string[], string][] = [
    [
      ['mint', 'subject', '--client', 'fragrance-demo'],
      'unknown flag --client; it is a flag of ppx mint env and ppx mint grant, not of ppx mint subject',
    ],
    [
      ['mint', 'package', '--grant', 'g1', '--namespaces', 'core'],
      'unknown flag --namespaces; it is a flag of ppx mint grant, not of ppx mint package',
    ],
    [
      ['mint', 'grant', '--client', 'fragrance-demo', '--namespaces', 'core', '--grant', 'g1'],
      'unknown flag --grant; it is a flag of ppx mint package, not of ppx mint grant',
    ],
    [
      ['mint', 'env', '--ttl', '60'],
      'unknown flag --ttl; it is a flag of ppx mint subject and ppx mint grant, not of ppx mint env',
    ],
    [
      ['mint', 'subject', '--resource', 'http://127.0.0.1:8787/mcp'],
      'unknown flag --resource; it is a flag of ppx mint package and ppx mint grant, not of ppx mint subject',
    ],
  ];
  for (const [args, problem] of crossed) {
    it(`a flag of another kind is refused: ppx ${args.join(' ')}`, () => refused(args, problem));
  }

  it('a flag before the kind is parsed as that kind’s', async () => {
    const r = await box.run(['mint', '--ttl', '60', 'subject', '--json']);
    assert.equal(r.code, 0, show(r));
    assert.equal(JSON.parse(r.stdout).expires_in, 60);
  });

  it('an extra argument is refused', () => refused(['mint', 'subject', 'now'], 'unexpected argument "now"'));

  const typos: [string[], string][] = [
    [['mint', 'grant', '--client', 'fragrance-demo', '--namespace', 'core'], '--namespace', '--namespaces'],
    [['mint', 'grant', '--clinet', 'fragrance-demo', '--namespaces', 'core'], '--clinet', '--client'],
    [['mint', 'subject', '--jsno'], '--jsno', '--json'],
    [['mint', 'subject', '--base-ulr', 'http://x'], '--base-ulr', '--base-url'],
  ].map(([args, typed, meant]) => [
    args as string[],
    `unknown flag ${typed as string} (did you mean ${meant as string}?)`,
  ]);
  for (const [args, problem] of typos) {
    it(`a mistyped flag gets "did you mean": ppx ${args.join(' ')}`, () => refused(args, problem));
  }

  it('a flag far from every known one gets no guess', () =>
    refused(['mint', 'subject', '--frobnicate'], 'unknown flag --frobnicate'));

  for (const [args, problem] of [
    [['serve', '--prot', '8080'], 'ppx serve: unknown flag --prot (did you mean --port?)'],
    [['export', '--subjet', 'x'], 'ppx export: unknown flag --subjet (did you mean --subject?)'],
    [
      ['client', 'add', '--redirect-url', 'x'],
      'ppx client: unknown flag --redirect-url (did you mean --redirect-uri?)',
    ],
    [
      ['audit', 'prune', '--older-then-days', '3'],
      'ppx audit: unknown flag --older-then-days (did you mean --older-than-days?)',
    ],
  ] as const) {
    it(`every command suggests: ppx ${args.join(' ')}`, async () => {
      const r = await box.run([...args]);
      assert.equal(r.code, 2, show(r));
      assert.equal(r.stderr, `${problem}\n`);
    });
  }
});
