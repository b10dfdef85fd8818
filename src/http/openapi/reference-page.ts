/** A self-contained HTML API reference rendered from the OpenAPI document (no CDN, works offline). */
type Doc = { info?: { title?: string; description?: string }; paths?: Record<string, Record<string, Operation>> };
type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown; description?: string }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
  'x-required-scope'?: string;
};

const esc = (s: unknown): string =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const json = (v: unknown): string => `<pre>${esc(JSON.stringify(v, null, 2))}</pre>`;

function operation(path: string, method: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .map(
      (p) =>
        `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : ''}</td><td><code>${esc(JSON.stringify(p.schema ?? {}))}</code></td></tr>`,
    )
    .join('');
  const body = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries(op.responses ?? {})
    .map(
      ([status, r]) =>
        `<details><summary><b>${esc(status)}</b> ${esc(r.description ?? '')}</summary>${r.content?.['application/json'] ? json(r.content['application/json'].schema) : ''}</details>`,
    )
    .join('');
  return `<section id="${esc(method + path)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary ?? '')}${op['x-required-scope'] ? ` — scope <code>${esc(op['x-required-scope'])}</code>` : ''}</p>
${op.description ? `<p>${esc(op.description)}</p>` : ''}
${params ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${params}</table>` : ''}
${body ? `<details><summary>Request body</summary>${json(body)}</details>` : ''}
${responses}
</section>`;
}

export function renderReference(doc: Doc): string {
  const sections = Object.entries(doc.paths ?? {}).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      tag: op.tags?.[0] ?? 'Other',
      html: operation(path, method, op),
      path,
      method,
    })),
  );
  const tags = [...new Set(sections.map((s) => s.tag))];
  const nav = tags
    .map(
      (t) =>
        `<h4>${esc(t)}</h4>${sections
          .filter((s) => s.tag === t)
          .map((s) => `<a href="#${esc(s.method + s.path)}">${esc(s.method.toUpperCase())} ${esc(s.path)}</a>`)
          .join('<br>')}`,
    )
    .join('');
  const body = tags
    .map(
      (t) =>
        `<h2>${esc(t)}</h2>${sections
          .filter((s) => s.tag === t)
          .map((s) => s.html)
          .join('')}`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info?.title ?? 'API')} reference</title>
<style>body{font-family:system-ui,sans-serif;margin:0;display:flex}nav{width:320px;padding:1em;height:100vh;overflow:auto;position:sticky;top:0;background:#f6f6f8;font-size:13px}
main{padding:1em 2em;max-width:960px}pre{background:#f3f3f3;padding:.5em;overflow:auto;font-size:12px}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;font-size:13px}
.m{padding:2px 6px;border-radius:4px;color:#fff;font-size:12px}.get{background:#2b7}.post{background:#27b}.put{background:#b72}.delete{background:#b22}.patch{background:#72b}</style></head>
<body><nav><b>${esc(doc.info?.title ?? '')}</b><p><a href="/v1/openapi.json">openapi.json</a></p>${nav}</nav>
<main><h1>${esc(doc.info?.title ?? '')}</h1><p>${esc(doc.info?.description ?? '')}</p>${body}</main></body></html>`;
}
