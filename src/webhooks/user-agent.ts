import { readFileSync } from 'node:fs';

const PACKAGE_NAME = 'partner-ordering-service';

/**
 * The service's version from its package.json: the nearest one above this module named like the
 * service (this file runs from src/ under tsx and vitest and from dist/src/ once built).
 */
function serviceVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look one level up
    }
    if (dir.pathname === '/') return '0.0.0';
  }
}

export const SERVICE_VERSION = serviceVersion();

/** The User-Agent of every webhook request: the service and its version (receivers may log or allow-list it). */
export const WEBHOOK_USER_AGENT = `${PACKAGE_NAME}/${SERVICE_VERSION} (webhooks)`;
