/**
 * The Content-Security-Policy of the service's own HTML pages (the console, the API reference):
 * same-origin scripts, styles, images, fonts and requests only, never framed. Each page adds the
 * directives that differ (where its forms post, whether it starts workers).
 */
export function pageContentSecurityPolicy(directives: { formAction: string; workerSrc?: string }): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Inline styles, never scripts: Scalar adds its styles at run time, mermaid writes its SVG's inline.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    ...(directives.workerSrc ? [`worker-src ${directives.workerSrc}`] : []),
    "base-uri 'none'",
    `form-action ${directives.formAction}`,
    "frame-ancestors 'none'",
  ].join('; ');
}
