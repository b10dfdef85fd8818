import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/webhook/event-types.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule.js';
import { signatureHeader, WEBHOOK_HEADER_NAMES } from '../../src/webhooks/signing.js';

// The verification code partners copy from docs/webhooks.md is run here exactly as printed,
// against signatures made by the service's own signing module.

const DOC = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

/** The fenced block of `lang` whose first line is `firstLine`. */
function codeBlock(lang: string, firstLine: string): string {
  const match = new RegExp(
    '```' + lang + '\\n(' + firstLine.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '\\n[\\s\\S]*?)```',
  ).exec(DOC);
  if (!match?.[1]) throw new Error(`docs/webhooks.md has no ${lang} block starting with ${firstLine}`);
  return match[1];
}

const SECRET = 'whsec_docs_new_secret';
const OLD = 'whsec_docs_old_secret';
const T = 1_760_260_502;
const BODY = Buffer.from(
  '{"id":"evt_1","object":"event","type":"order.created","data":{"order":{"reference":"caf\u00e9"}}}',
);
const signed = signatureHeader([SECRET], T, BODY);
const rotated = signatureHeader([SECRET, OLD], T, BODY);

type Case = { name: string; body: Buffer; header: string; secret: string; now: number | null; expected: boolean };
const CASES: Case[] = [
  { name: 'valid', body: BODY, header: signed, secret: SECRET, now: T, expected: true },
  { name: 'valid, clock 300 s ahead', body: BODY, header: signed, secret: SECRET, now: T + 300, expected: true },
  { name: 'valid, clock 300 s behind', body: BODY, header: signed, secret: SECRET, now: T - 300, expected: true },
  { name: 'stale: 301 s old', body: BODY, header: signed, secret: SECRET, now: T + 301, expected: false },
  { name: 'future: 301 s ahead', body: BODY, header: signed, secret: SECRET, now: T - 301, expected: false },
  {
    name: 'tampered body',
    body: Buffer.concat([BODY, Buffer.from(' ')]),
    header: signed,
    secret: SECRET,
    now: T,
    expected: false,
  },
  { name: 'wrong secret', body: BODY, header: signed, secret: 'whsec_other', now: T, expected: false },
  {
    name: 'moved timestamp',
    body: BODY,
    header: signed.replace(`t=${T}`, `t=${T + 1}`),
    secret: SECRET,
    now: T,
    expected: false,
  },
  { name: 'rotation, new secret', body: BODY, header: rotated, secret: SECRET, now: T, expected: true },
  { name: 'rotation, old secret', body: BODY, header: rotated, secret: OLD, now: T, expected: true },
  { name: 'rotation, unrelated secret', body: BODY, header: rotated, secret: 'whsec_third', now: T, expected: false },
  { name: 'no v1', body: BODY, header: `t=${T}`, secret: SECRET, now: T, expected: false },
  { name: 'no t', body: BODY, header: signed.replace(/^t=\d+,/, ''), secret: SECRET, now: T, expected: false },
  { name: 'garbage', body: BODY, header: 'garbage,=,v1=zz', secret: SECRET, now: T, expected: false },
  { name: 'empty header', body: BODY, header: '', secret: SECRET, now: T, expected: false },
];

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'webhook-docs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/webhooks.md: Node verification code', () => {
  type Verify = (rawBody: Buffer, header: unknown, secret: string, nowSeconds?: number) => boolean;
  let verifyWebhook: Verify;

  beforeAll(async () => {
    const file = path.join(dir, 'verify-webhook.mjs');
    writeFileSync(file, codeBlock('js', '// verify-webhook.mjs'));
    ({ verifyWebhook } = (await import(pathToFileURL(file).href)) as { verifyWebhook: Verify });
  });

  it.each(CASES)('when $name, then it returns $expected', ({ body, header, secret, now, expected }) => {
    expect(verifyWebhook(body, header, secret, now ?? undefined)).toBe(expected);
  });

  it('when no time is passed, then the current clock is used', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(BODY, signatureHeader([SECRET], now, BODY), SECRET)).toBe(true);
    expect(verifyWebhook(BODY, signatureHeader([SECRET], now - 3600, BODY), SECRET)).toBe(false);
  });

  it('when the header is missing (undefined), then it returns false', () => {
    expect(verifyWebhook(BODY, undefined, SECRET, T)).toBe(false);
  });
});

const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const pythonMissing = python.error !== undefined || python.status !== 0;
if (pythonMissing) console.warn('python3 not found: skipping the Python snippet test of docs/webhooks.md');

describe.skipIf(pythonMissing)('docs/webhooks.md: Python verification code', () => {
  const HARNESS = [
    'import json, sys',
    'sys.path.insert(0, sys.argv[1])',
    'from verify_webhook import verify_webhook',
    'cases = json.load(sys.stdin)',
    'print(json.dumps([verify_webhook(bytes.fromhex(c["body"]), c["header"], c["secret"], c["now"]) for c in cases]))',
  ].join('\n');

  function runPython(cases: Case[]): boolean[] {
    writeFileSync(path.join(dir, 'verify_webhook.py'), codeBlock('python', '# verify_webhook.py'));
    const input = JSON.stringify(cases.map((c) => ({ ...c, body: c.body.toString('hex') })));
    const run = spawnSync('python3', ['-c', HARNESS, dir], { input, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as boolean[];
  }

  it('when given every case, then it agrees with the expected result of each', () => {
    const results = runPython(CASES);
    expect(Object.fromEntries(CASES.map((c, i) => [c.name, results[i]]))).toEqual(
      Object.fromEntries(CASES.map((c) => [c.name, c.expected])),
    );
  });

  it('when no time is passed, then the current clock is used', () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = {
      name: 'fresh',
      body: BODY,
      header: signatureHeader([SECRET], now, BODY),
      secret: SECRET,
      now: null,
      expected: true,
    };
    const old = { ...fresh, name: 'old', header: signatureHeader([SECRET], now - 3600, BODY), expected: false };
    expect(runPython([fresh, old])).toEqual([true, false]);
  });
});

describe('docs/webhooks.md stays in step with the code', () => {
  it('when read, then it names every event type and header', () => {
    for (const type of EVENT_TYPES) expect(DOC).toContain(`\`${type}\``);
    for (const header of [...Object.values(WEBHOOK_HEADER_NAMES), 'Content-Type'])
      expect(DOC).toContain(`\`${header}\``);
  });

  it('when read, then the retry table has one row per attempt with the schedule of retry-schedule.ts', () => {
    const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
    const words = (ms: number) =>
      ms === 0
        ? 'none (sent at once)'
        : ms % 3_600_000 === 0
          ? plural(ms / 3_600_000, 'hour')
          : plural(ms / 60_000, 'minute');
    RETRY_DELAYS_MS.forEach((ms, i) => expect(DOC).toContain(`| ${i + 1} | ${words(ms)} |`));
  });
});
