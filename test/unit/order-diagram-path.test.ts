import { describe, expect, it } from 'vitest';
import { pathMarks } from '../../src/domain/order/diagram.js';

describe('pathMarks', () => {
  it('when given the statuses an order went through, then the lines mark them and the last one as current', () => {
    const text = pathMarks(['new', 'placed', 'confirmed', 'cancelled']);
    expect(text).toContain('    class new,placed,confirmed visited\n');
    expect(text).toContain('    class cancelled current\n');
    expect(text).toMatch(/classDef visited /);
    expect(text).toMatch(/classDef current /);
  });

  it('when a status repeats or is unknown, then it is marked once and the unknown one left out', () => {
    const text = pathMarks(['new', 'placed', 'placed', 'no_such_status']);
    expect(text).toContain('    class new visited\n');
    expect(text).toContain('    class placed current\n');
    expect(text).not.toContain('no_such_status');
  });

  it('when nothing is known of the path, then only the style definitions are added', () => {
    const text = pathMarks([]);
    expect(text).not.toMatch(/^\s*class /m);
  });
});
