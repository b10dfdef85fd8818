import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Signing secrets at rest: AES-256-GCM, one random 96-bit IV per secret, text form
// `v1:<iv>:<tag>:<ciphertext>` (base64url) so the scheme can change without a migration guess.

export const KEY_BYTES = 32;
export const KEY_FILE_NAME = 'webhook-secrets.key';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES)
    throw new SecretBoxError(`secret-box key must be ${KEY_BYTES} bytes, got ${key.length}`);
}

export function encryptSecret(plain: string, key: Buffer): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join(':');
}

/** Throws SecretBoxError when the text is malformed, was altered, or was sealed with another key. */
export function decryptSecret(boxed: string, key: Buffer): string {
  checkKey(key);
  const parts = boxed.split(':');
  if (parts.length !== 4 || parts[0] !== 'v1') throw new SecretBoxError('sealed secret is not in the v1 format');
  const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
    throw new SecretBoxError('sealed secret has a malformed IV or tag');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('sealed secret could not be opened: wrong key or altered data');
  }
}

/** WEBHOOK_SECRETS_KEY: 32 bytes in base64 or base64url. The message never echoes the value. */
export function parseKeyFromConfig(base64: string): Buffer {
  const text = base64.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new SecretBoxError('webhook secrets key must be base64 text');
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new SecretBoxError(`webhook secrets key must decode to ${KEY_BYTES} bytes, got ${key.length}`);
  }
  return key;
}

/**
 * The embedded default's key: `<dataDir>/webhook-secrets.key` (32 raw bytes, mode 0600), made on
 * first use. Created under a temporary name and hard-linked into place, so a crash never leaves a
 * short key file and two starting processes cannot end up with different keys.
 */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE_NAME);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const existing = readKey(file);
  if (existing) return existing;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx', flush: true });
    try {
      linkSync(tmp, file);
      syncDir(dataDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another process won the race
    }
  } finally {
    unlinkSync(tmp);
  }
  const key = readKey(file);
  if (!key) throw new SecretBoxError(`${file} disappeared while it was being created`);
  return key;
}

/** The key file's key, or null when there is no key file (never creates one). */
export function readKeyFile(dataDir: string): Buffer | null {
  return readKey(path.join(dataDir, KEY_FILE_NAME));
}

function readKey(file: string): Buffer | null {
  let key: Buffer;
  try {
    key = readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (key.length !== KEY_BYTES) {
    throw new SecretBoxError(
      `${file} must hold exactly ${KEY_BYTES} bytes, found ${key.length}; restore it from backup`,
    );
  }
  return key;
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
