import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';
import { officialErrors, SKIP_NO_SHARED } from '../support/official-schemas.ts';

const SUBJECT = 'did:example:user-demo-0001';

// biome-ignore lint/suspicious/noExplicitAny: the tests edit arbitrary exported JSON
type Doc = any;

describe('ppx export / import', () => {
  let box: CliSandbox;
  let baselineFile: string;
  let baseline: Doc;

  before(async () => {
    box = sandbox();
    const seeded = await box.run(['seed', '--demo']);
    assert.equal(seeded.code, 0, show(seeded));
    const grant = await box.run(['mint', 'grant', '--client', 'travel-demo', '--namespaces', 'core,travel']);
    assert.equal(grant.code, 0, show(grant));
    baselineFile = box.path('f.json');
    const r = await box.run(['export', '--subject', SUBJECT, '--out', baselineFile]);
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout, '');
    baseline = JSON.parse(readFileSync(baselineFile, 'utf8'));
  });
  after(() => box.cleanup());

  /** Exports the subject's profile now, from stdout. */
  async function exportNow(): Promise<Doc> {
    const r = await box.run(['export', '--subject', SUBJECT]);
    assert.equal(r.code, 0, show(r));
    return JSON.parse(r.stdout);
  }

  function writeDoc(name: string, edit: (d: Doc) => void): string {
    const doc = structuredClone(baseline);
    edit(doc);
    const file = box.path(name);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  }

  it('export --out writes a profile valid against the OFFICIAL profile schema', {
    skip: SKIP_NO_SHARED,
  }, () => {
    assert.deepEqual(officialErrors('profile', baseline), []);
    assert.equal(baseline.subject_id, SUBJECT);
    assert.equal(baseline.claims.length, 20);
    assert.equal(baseline.context_modifiers.length, 3);
    assert.equal(baseline.consent_grants.length, 1);
    assert.equal(baseline.consent_grants[0].grantee_id, 'travel-demo');
  });

  it('export to stdout prints the same document as --out', async () => {
    assert.deepEqual(await exportNow(), baseline);
  });

  it('export of an unknown subject fails with exit 1', async () => {
    const r = await box.run(['export', '--subject', 'did:example:nobody']);
    assert.equal(r.code, 1, show(r));
    assert.equal(r.stderr.trim(), 'ppx export: there is no profile for this subject yet');
  });

  it('export without --subject is a usage error (exit 2)', async () => {
    const r = await box.run(['export']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /--subject is required/);
  });

  it('import without --replace refuses an existing subject and writes nothing', async () => {
    const file = writeDoc('exists.json', (d) => {
      d.claims[0].value = 0.11;
    });
    const r = await box.run(['import', file]);
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /was not imported, nothing was written/);
    assert.match(r.stderr, /subject "did:example:user-demo-0001" already has a profile; import with replace/);
    assert.deepEqual(await exportNow(), baseline);
  });

  it('import --replace of the exported file succeeds and round-trips', async () => {
    const r = await box.run(['import', baselineFile, '--replace']);
    assert.equal(r.code, 0, show(r));
    assert.equal(
      r.stdout.trim(),
      'imported 20 claims and 3 context modifiers for did:example:user-demo-0001 (1 grants skipped: grants are not transferable)',
    );
    assert.deepEqual(await exportNow(), baseline);
  });

  it('import --replace applies a changed claim', async () => {
    const file = writeDoc('changed.json', (d) => {
      d.claims[0].value = 0.11;
    });
    assert.equal((await box.run(['import', file, '--replace'])).code, 0);
    const now = await exportNow();
    assert.equal(now.claims.find((c: Doc) => c.claim_id === baseline.claims[0].claim_id).value, 0.11);
    const back = await box.run(['import', baselineFile, '--replace']);
    assert.equal(back.code, 0, show(back));
    assert.deepEqual(await exportNow(), baseline);
  });

  describe('a bad file: exit 1, the problem named, the database unchanged', () => {
    const cases: [string, (file: string) => void, RegExp][] = [
      [
        'invalid JSON',
        (f) => writeFileSync(f, '{"ppx_version": "0.1", "claims": ['),
        /cannot read .* as JSON/,
      ],
      [
        'a claim with confidence 2',
        (f) => writeFileSync(f, JSON.stringify(edit((d) => (d.claims[3].confidence = 2)))),
        /claims\.3\.confidence/,
      ],
      [
        'an unknown namespace',
        (f) => writeFileSync(f, JSON.stringify(edit((d) => (d.claims[1].namespace = 'weather')))),
        /namespace "weather" is not supported by this provider/,
      ],
      [
        'duplicate claim ids',
        (f) =>
          writeFileSync(
            f,
            JSON.stringify(
              edit((d) => {
                d.claims[4].claim_id = 'ppx:claim:dup-1';
                d.claims[5].claim_id = 'ppx:claim:dup-1';
              }),
            ),
          ),
        /id ppx:claim:dup-1 appears more than once/,
      ],
      [
        'a missing required field (updated_at)',
        (f) => writeFileSync(f, JSON.stringify(edit((d) => delete d.updated_at))),
        /updated_at/,
      ],
      [
        'a missing required claim field (source)',
        (f) => writeFileSync(f, JSON.stringify(edit((d) => delete d.claims[19].source))),
        /claims\.19\.source/,
      ],
      [
        'a core value out of [0, 1]',
        (f) => writeFileSync(f, JSON.stringify(edit((d) => (d.claims[6].value = 1.5)))),
        /value must be between 0\.0 and 1\.0/,
      ],
      ['a JSON array', (f) => writeFileSync(f, '[]'), /the profile document is not valid/],
    ];

    function edit(change: (d: Doc) => void): Doc {
      const doc = structuredClone(baseline);
      doc.claims[0].value = 0.99; // a valid change that must NOT land when the file is refused
      change(doc);
      return doc;
    }

    cases.forEach(([what, write, message], i) => {
      it(`${what} (with --replace)`, async () => {
        const file = box.path(`bad-${i}.json`);
        write(file);
        const r = await box.run(['import', file, '--replace']);
        assert.equal(r.code, 1, show(r));
        assert.match(r.stderr, message);
        assert.match(r.stderr, /^ppx: /);
        assert.equal(r.stdout, '');
        assert.deepEqual(await exportNow(), baseline);
      });
    });

    it('a file that does not exist', async () => {
      const r = await box.run(['import', box.path('missing.json')]);
      assert.equal(r.code, 1, show(r));
      assert.match(r.stderr, /cannot read .*missing\.json as JSON/);
    });
  });

  it('import without a file is a usage error (exit 2)', async () => {
    const r = await box.run(['import']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /name the file to import/);
  });
});

describe('ppx usage errors', () => {
  let box: CliSandbox;
  before(() => {
    box = sandbox();
  });
  after(() => box.cleanup());

  it('an unknown command exits 2 with the usage', async () => {
    const r = await box.run(['frobnicate']);
    assert.equal(r.code, 2, show(r));
    assert.equal(r.stderr.trim(), 'ppx: unknown command "frobnicate"');
    assert.match(r.stdout, /^PPX provider\n/);
    for (const cmd of ['ppx serve', 'ppx mint subject', 'ppx export', 'ppx import', 'ppx seed']) {
      assert.ok(r.stdout.includes(cmd), `usage mentions ${cmd}`);
    }
  });

  it('no command prints the usage and exits 0', async () => {
    const r = await box.run([]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^PPX provider\n/);
    assert.equal(r.stderr, '');
  });

  const flags: [string[], RegExp][] = [
    [['export', '--subject', SUBJECT, '--bogus'], /^ppx export: .*--bogus/],
    [['import', 'f.json', '--force'], /^ppx import: .*--force/],
    [['seed', '--demo', '--all'], /^ppx seed: .*--all/],
    [['mint', 'subject', '--forever'], /^ppx mint: .*--forever/],
    [['serve', '--prot', '8080'], /^ppx serve: .*--prot/],
  ];
  for (const [args, message] of flags) {
    it(`unknown flag: ppx ${args.join(' ')} exits 2 with usage`, async () => {
      const r = await box.run(args);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, message);
      assert.match(r.stdout, new RegExp(`ppx ${args[0]}`));
    });
  }
});
