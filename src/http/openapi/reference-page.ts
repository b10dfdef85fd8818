import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pageContentSecurityPolicy } from '../content-security-policy.js';

/**
 * The API reference at /docs: Scalar's API reference (`@scalar/api-reference`), served by the
 * service from its own node_modules (no CDN, works offline). The page loads the partner document
 * from /v1/openapi.json and sends "try it" requests to the origin it was opened from.
 */

export const REFERENCE_SCRIPT_PATH = '/docs/assets/api-reference.js';
export const REFERENCE_INIT_PATH = '/docs/assets/init.js';

/**
 * Requests ("try it", the document) to this origin only, so the reference cannot call out to
 * anyone else; no forms.
 */
export const REFERENCE_CSP = pageContentSecurityPolicy({ formAction: "'none'", workerSrc: "'self' blob:" });

export const REFERENCE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner Ordering API reference</title>
</head>
<body>
<noscript>The reference needs JavaScript. The contract itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<div id="app"></div>
<script src="${REFERENCE_SCRIPT_PATH}"></script>
<script src="${REFERENCE_INIT_PATH}"></script>
</body>
</html>
`;

/**
 * Starts the reference. The server is the page's own origin; the sandbox key a partner types in
 * the authentication box stays in the page (not persisted, no proxy).
 */
export const REFERENCE_INIT_SCRIPT = `'use strict';
Scalar.createApiReference('#app', {
  url: '/v1/openapi.json',
  servers: [{ url: window.location.origin, description: 'This service' }],
  authentication: { preferredSecurityScheme: 'apiKey' },
  persistAuth: false,
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  defaultOpenAllTags: true,
});
`;

let bundle: Buffer | undefined;

/** Scalar's self-contained browser bundle (exposes `Scalar.createApiReference`), read once. */
export function referenceBundle(): Buffer {
  if (!bundle) {
    const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
    bundle = fs.readFileSync(path.join(path.dirname(entry), 'browser', 'standalone.js'));
  }
  return bundle;
}
