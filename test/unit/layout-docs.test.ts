import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// README.md's import arrows (section "Layout") are the rules `npm run lint` checks: the same list.

type Layer = [name: string, allowed: string[], comment: string];

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The arrows block: lines `folder/ -> a, b` (or `-> (nothing)`), as name -> allowed. */
function readmeArrows(): Record<string, string[]> {
  const block = /Which folder may import which[\s\S]*?```\n([\s\S]*?)```/.exec(README)?.[1];
  if (!block) throw new Error('README.md has no arrows block under "Which folder may import which"');
  return Object.fromEntries(
    block
      .trim()
      .split('\n')
      .map((line) => {
        const [from = '', to = ''] = line.split('->').map((part) => part.trim());
        return [from.replace(/\/$|\.ts$/, ''), to === '(nothing)' ? [] : to.split(', ')];
      }),
  );
}

describe('README layout', () => {
  it('names the same arrows as .dependency-cruiser.js', async () => {
    const { LAYERS } = (await import(new URL('../../.dependency-cruiser.js', import.meta.url).href)) as {
      LAYERS: Layer[];
    };
    const rules = Object.fromEntries(LAYERS.map(([name, allowed]) => [name, allowed]));
    expect(readmeArrows()).toEqual(rules);
  });
});
