import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  decryptSecret,
  encryptSecret,
  KEY_FILE_NAME,
  loadOrCreateKeyFile,
  parseKeyFromConfig,
  SecretBoxError,
} from '../../src/webhooks/secret-box.js';

const KEY = Buffer.alloc(32, 7);
const SECRET = 'whsec_3kTzq9VfLw0pQ2x8RmA7bN4cY6dE1hJ5sU';

/** Flips one bit in the decoded part `index` (1 = IV, 2 = tag, 3 = ciphertext) of a sealed secret. */
function flipBit(sealed: string, index: number): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0]! ^= 1;
  parts[index] = bytes.toString('base64url');
  return parts.join(':');
}

describe('encryptSecret / decryptSecret', () => {
  it('when sealed and opened with the same key, then the secret comes back (round trip)', () => {
    for (const plain of [SECRET, '', 'ünïcødé ✓']) {
      expect(decryptSecret(encryptSecret(plain, KEY), KEY)).toBe(plain);
    }
  });

  it('when sealed, then the text is v1:<iv>:<tag>:<ciphertext> in base64url and never contains the secret', () => {
    const sealed = encryptSecret(SECRET, KEY);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain(SECRET.slice(6));
  });

  it('when the same secret is sealed twice, then a fresh IV makes the texts differ', () => {
    expect(encryptSecret(SECRET, KEY)).not.toBe(encryptSecret(SECRET, KEY));
  });

  it.each([
    [1, 'IV'],
    [2, 'tag'],
    [3, 'ciphertext'],
  ])('when one bit of part %i (%s) is altered, then opening fails', (index) => {
    const tampered = flipBit(encryptSecret(SECRET, KEY), index);
    expect(() => decryptSecret(tampered, KEY)).toThrow(/wrong key or altered data/);
  });

  it('when opened with another key, then it fails', () => {
    const sealed = encryptSecret(SECRET, KEY);
    expect(() => decryptSecret(sealed, Buffer.alloc(32, 8))).toThrow(SecretBoxError);
  });

  it.each(['', 'v1:abc', 'v2:a:b:c', `v1:${'A'.repeat(8)}:${'A'.repeat(22)}:AAAA`, SECRET])(
    'when the text %j is not a v1 sealed secret, then it fails clearly',
    (text) => {
      expect(() => decryptSecret(text, KEY)).toThrow(/v1 format|malformed IV or tag/);
    },
  );

  it('when the key is not 32 bytes, then both directions refuse', () => {
    expect(() => encryptSecret(SECRET, Buffer.alloc(16))).toThrow(/must be 32 bytes, got 16/);
    expect(() => decryptSecret(encryptSecret(SECRET, KEY), Buffer.alloc(31))).toThrow(/must be 32 bytes/);
  });
});

describe('parseKeyFromConfig', () => {
  const raw = randomBytes(32);

  it('when given 32 bytes in base64 or base64url, then it returns those bytes', () => {
    expect(parseKeyFromConfig(raw.toString('base64'))).toEqual(raw);
    expect(parseKeyFromConfig(` ${raw.toString('base64url')}\n`)).toEqual(raw);
  });

  it('when the value decodes to another length or is not base64, then it refuses without echoing the value', () => {
    const short = randomBytes(16).toString('base64');
    expect(() => parseKeyFromConfig(short)).toThrow(/32 bytes, got 16/);
    try {
      parseKeyFromConfig(short);
    } catch (e) {
      expect((e as Error).message).not.toContain(short);
    }
    expect(() => parseKeyFromConfig('not base64!')).toThrow(/base64 text/);
    expect(() => parseKeyFromConfig('')).toThrow(SecretBoxError);
  });
});

describe('loadOrCreateKeyFile', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'secret-box-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('when no key file exists, then it makes one of 32 random bytes with mode 0600 and no leftovers', () => {
    const dataDir = path.join(tempDir(), 'nested', 'data');
    const key = loadOrCreateKeyFile(dataDir);
    const file = path.join(dataDir, KEY_FILE_NAME);
    expect(key).toHaveLength(32);
    expect(readFileSync(file)).toEqual(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual([KEY_FILE_NAME]);
  });

  it('when the key file exists, then later calls read the same key (secrets survive a restart)', () => {
    const dataDir = tempDir();
    const first = loadOrCreateKeyFile(dataDir);
    const sealed = encryptSecret(SECRET, first);
    const second = loadOrCreateKeyFile(dataDir);
    expect(second).toEqual(first);
    expect(decryptSecret(sealed, second)).toBe(SECRET);
  });

  it('when two data dirs are used, then they get different keys', () => {
    expect(loadOrCreateKeyFile(tempDir())).not.toEqual(loadOrCreateKeyFile(tempDir()));
  });

  it('when the key file has the wrong length, then it refuses instead of replacing it', () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, KEY_FILE_NAME);
    writeFileSync(file, Buffer.alloc(10));
    expect(() => loadOrCreateKeyFile(dataDir)).toThrow(/exactly 32 bytes, found 10/);
    expect(readFileSync(file)).toHaveLength(10);
  });
});
