import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { tempDataDir } from '../support/service.js';
import { PROCESS_TEST_TIMEOUT_MS } from '../support/wait.js';

const CLI = 'dist/src/cli/main.js';
let dataDir: string;

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(CLI)) execFileSync('npm', ['run', 'build', '--silent']);
  dataDir = tempDataDir();
}, 120_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('CLI: partners and keys', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('when a partner is created with --json, then it prints exactly one JSON object with both keys', () => {
    const r = cli(['partners', 'create', '--name', 'Deliveroo Kuwait', '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out).sort()).toEqual([
      'id',
      'live_key',
      'live_key_id',
      'name',
      'partner_id',
      'rate_limit_per_min',
      'sandbox_key',
      'sandbox_key_id',
      'scopes',
    ]);
    expect(out.live_key).toMatch(/^svc_live_[0-9A-Za-z]{43}$/);
    expect(out.sandbox_key).toMatch(/^svc_test_[0-9A-Za-z]{43}$/);
    // The ids partners list and keys list give, so a new key can be revoked at once.
    expect(out.partner_id).toBe(out.id);
    const keys = JSON.parse(cli(['keys', 'list', '--partner', out.id, '--json']).stdout);
    expect(
      Object.fromEntries(keys.map((k: { environment: string; key_id: string }) => [k.environment, k.key_id])),
    ).toEqual({ live: out.live_key_id, sandbox: out.sandbox_key_id });
    expect(out.rate_limit_per_min).toBeGreaterThanOrEqual(600);
    expect(out.scopes).toEqual(expect.arrayContaining(['catalog:read', 'offers:read', 'webhooks:manage']));
  });

  it('when scopes and a rate limit are given, then the keys carry them; unknown scopes are refused', () => {
    const r = cli([
      'partners',
      'create',
      '--name',
      'Scoped',
      '--scopes',
      'catalog:read,orders:read',
      '--rate-limit',
      '700',
      '--json',
    ]);
    const out = JSON.parse(r.stdout);
    expect(out.scopes).toEqual(['catalog:read', 'orders:read']);
    expect(out.rate_limit_per_min).toBe(700);
    const bad = cli(['partners', 'create', '--name', 'Bad', '--scopes', 'catalog:write']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('unknown scope');
  });

  it('when keys are created, listed and revoked, then list never shows a full key', () => {
    const partner = JSON.parse(cli(['partners', 'create', '--name', 'Keys Co', '--json']).stdout);
    const created = cli(['keys', 'create', '--partner', partner.partner_id, '--environment', 'sandbox', '--json']);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(Object.keys(key).sort()).toEqual(['environment', 'key', 'key_id', 'rate_limit_per_min', 'scopes']);
    expect(key.key).toMatch(/^svc_test_/);

    const listed = cli(['keys', 'list', '--partner', partner.partner_id, '--json']);
    expect(listed.code).toBe(0);
    for (const secret of [key.key, partner.live_key, partner.sandbox_key]) expect(listed.stdout).not.toContain(secret);
    expect(JSON.parse(listed.stdout)).toHaveLength(3);

    expect(cli(['keys', 'revoke', key.key_id]).code).toBe(0);
    const after = JSON.parse(cli(['keys', 'list', '--partner', partner.partner_id, '--json']).stdout);
    expect(after.find((k: { key_id: string }) => k.key_id === key.key_id).revoked_at).toBeTruthy();
    expect(cli(['keys', 'revoke', 'key_nope']).code).toBe(1);
    // The key itself given for its id: refused with the way to its id, the key not echoed.
    const byKey = cli(['keys', 'revoke', partner.live_key]);
    expect(byKey.code).toBe(1);
    expect(byKey.stderr).toContain('that is an API key, not its id: `keys list --partner <partner_id>` shows the ids');
    expect(byKey.stderr + byKey.stdout).not.toContain(partner.live_key);
    const keys = JSON.parse(cli(['keys', 'list', '--partner', partner.partner_id, '--json']).stdout) as Array<{
      environment: string;
      revoked_at: string | null;
    }>;
    expect(keys.find((k) => k.environment === 'live')!.revoked_at).toBeNull();
    expect(cli(['keys', 'list', '--partner', 'ptr_nope']).stderr).toContain('No partner');
  });

  it.each([
    ['is empty', '', 'must be 1 to 200 characters'],
    ['is blank', '   ', 'must be 1 to 200 characters'],
    ['is 201 characters', 'a'.repeat(201), 'must be 1 to 200 characters'],
    ['has a newline', 'Evil\nptr_fake  Other', 'must not contain control characters'],
    ['has a tab', 'Evil\tCo', 'must not contain control characters'],
    ['has an escape sequence', 'Evil \u001b[2J Co', 'must not contain control characters'],
    ['has a bidi override', 'Evil \u202eoC', 'must not contain control characters'],
  ])(
    'when a partner name %s, then it is refused with one line that does not echo it, and no partner is made',
    (_, name, why) => {
      const before = cli(['partners', 'list', '--json']).stdout;
      const r = cli(['partners', 'create', '--name', name]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^error: --name ${why}`))]);
      expect(r.stderr).not.toContain(name.trim() || '\u0000');
      expect(cli(['partners', 'list', '--json']).stdout).toBe(before);
    },
  );

  it('when a partner name has spaces around it, then it is kept trimmed; 200 characters, emoji counted as one, are accepted', () => {
    const trimmed = JSON.parse(cli(['partners', 'create', '--name', '  Spaced Out  ', '--json']).stdout);
    expect(trimmed.name).toBe('Spaced Out');
    const longest = '🌯'.repeat(200);
    const r = cli(['partners', 'create', '--name', longest, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).name).toBe(longest);
  });

  it('when partners list --json runs, then it lists the partners', () => {
    const list = JSON.parse(cli(['partners', 'list', '--json']).stdout);
    expect(list.map((p: { name: string }) => p.name)).toContain('Deliveroo Kuwait');
  });

  it.each([
    [[]],
    [['partners']],
    [['partners', 'create']],
    [['partners', 'list']],
    [['keys']],
    [['keys', 'create']],
    [['keys', 'list']],
    [['keys', 'revoke']],
  ])('when %j --help is asked, then usage is printed', (args) => {
    const r = cli([...args, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage:');
  });

  it('when configuration is invalid, then the CLI stops with one line naming the variable', () => {
    const r = cli(['partners', 'list'], { PORT: 'eighty' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('PORT');
  });
});
