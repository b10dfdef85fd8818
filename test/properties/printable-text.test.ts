import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRINTABLE_PATTERN } from '../../src/shared/unicode.js';
import { VISIBLE_CHARACTER_PATTERN } from '../../src/http/schemas/text-patterns.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('the printable-text pattern of the OpenAPI document', () => {
  it('refuses exactly the controls, line breaks, bidi embeddings and overrides and hiding characters, over every code point', () => {
    const spelled = new RegExp(PRINTABLE_PATTERN, 'u');
    // Cc, Zl, Zp, the bidi controls but the three marks (no embedding: mixed-direction names use
    // them), and the invisible characters that spell nothing: ZWSP, the word joiner and invisible
    // operators, the Mongolian vowel separator, the deprecated format controls, the BOM, the
    // interlinear annotations.
    const stated = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}\u180e\u200b\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb]/u;
    const marks = /[\u061c\u200e\u200f]/u;
    const visible = new RegExp(VISIBLE_CHARACTER_PATTERN, 'u');
    const differ: string[] = [];
    const invisible: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue; // lone surrogates are not characters
      const ch = String.fromCodePoint(cp);
      const refused = stated.test(ch) && !marks.test(ch);
      if (spelled.test(ch) === refused) differ.push(cp.toString(16));
      // A Node upgrade with a newer Unicode adds format characters: update FORMAT in unicode.ts.
      // Those of the BMP (the pattern keeps to it) and whitespace are what it does not count.
      if (visible.test(ch) === (cp <= 0xffff && /[\p{Cf}\s]/u.test(ch))) invisible.push(cp.toString(16));
    }
    expect(differ).toEqual([]);
    expect(invisible).toEqual([]);
  });

  it('every pattern in both served documents is a plain ECMA-262 regex (no `/flags` suffix) that compiles with and without `u`', () => {
    const patterns: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'pattern' && typeof v === 'string') patterns.push(v);
          else walk(v);
        }
      }
    };
    walk(t.service.app.openApiDocument());
    walk(t.service.app.internalOpenApiDocument());
    expect(patterns.length).toBeGreaterThan(0);
    for (const p of patterns) {
      expect(p, 'a flagged regex written as source/flags matches nothing').not.toMatch(/\/[dgimsuvy]+$/);
      expect(() => new RegExp(p, 'u')).not.toThrow();
      // Tools that build a regex without the flag (validators, generated clients) must compile it too.
      expect(() => new RegExp(p), p.slice(0, 80)).not.toThrow();
    }
  });
});
