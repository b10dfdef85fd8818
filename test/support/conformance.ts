import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Response } from 'superagent';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, Resp> }>> };
type Resp = { headers?: Record<string, { required?: boolean }>; content?: Record<string, unknown> };

/** Failures found since the last check; test/support/setup.ts fails the test that produced any. */
export const conformanceFailures: string[] = [];

const compiled = new WeakMap<object, { ajv: Ajv2020; templates: Array<{ path: string; regex: RegExp }> }>();

function prepare(doc: Doc) {
  let entry = compiled.get(doc);
  if (!entry) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema(doc, 'openapi');
    const templates = Object.keys(doc.paths).map((path) => ({
      path,
      regex: new RegExp('^' + path.replace(/\{[^}]+\}/g, '[^/]+') + '$'),
    }));
    entry = { ajv, templates };
    compiled.set(doc, entry);
  }
  return entry;
}

const pointer = (...parts: string[]) =>
  '#/' + parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** Checks one response against the served OpenAPI document: declared status, content type, headers, body. */
export function checkConformance(doc: Doc, method: string, url: string, res: Response): string[] {
  const { ajv, templates } = prepare(doc);
  const path = new URL(url, 'http://x').pathname.replace(/\/$/, '') || '/';
  const where = `${method.toUpperCase()} ${path} -> ${res.status}`;
  const template = templates.find((t) => t.regex.test(path));
  if (!template) {
    // Unknown routes answer 404/405 in the envelope; nothing to match them against but the Error schema.
    return [404, 405].includes(res.status)
      ? validateError(ajv, res, where)
      : [`${where}: path not in the OpenAPI document`];
  }
  const op = doc.paths[template.path]![method.toLowerCase()];
  // Body parsing runs before routing, so an undeclared method can still meet a body error first.
  if (!op)
    return [400, 405, 413, 415].includes(res.status)
      ? validateError(ajv, res, where)
      : [`${where}: method not in the OpenAPI document`];
  const declared = op.responses[String(res.status)];
  if (!declared) return [`${where}: status not declared (declared: ${Object.keys(op.responses).join(', ')})`];
  const problems: string[] = [];
  for (const [name, h] of Object.entries(declared.headers ?? {})) {
    if (h.required && res.headers[name.toLowerCase()] === undefined) problems.push(`${where}: missing header ${name}`);
  }
  const json = declared.content?.['application/json'];
  if (json) {
    if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) {
      problems.push(`${where}: content-type ${res.headers['content-type']} is not application/json`);
    } else {
      const ref = pointer(
        'paths',
        template.path,
        method.toLowerCase(),
        'responses',
        String(res.status),
        'content',
        'application/json',
        'schema',
      );
      const validate = ajv.getSchema(`openapi${ref}`);
      if (!validate) problems.push(`${where}: cannot resolve ${ref}`);
      else if (!validate(res.body))
        problems.push(`${where}: body does not match schema: ${ajv.errorsText(validate.errors)}`);
    }
  }
  return problems;
}

function validateError(ajv: Ajv2020, res: Response, where: string): string[] {
  const validate = ajv.getSchema('openapi#/components/schemas/Error')!;
  return validate(res.body) ? [] : [`${where}: error body does not match Error: ${ajv.errorsText(validate.errors)}`];
}
