import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../src/base/config/index.js';

// RFC 7396, Appendix A: target, patch, result.
const rfcExamples: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe('applyMergePatch: RFC 7396', () => {
  it.each(rfcExamples.map(([target, patch, result], index) => ({ index, target, patch, result })))(
    'appendix A example $index',
    ({ target, patch, result }) => {
      expect(applyMergePatch(target, patch)).toEqual(result);
    },
  );

  it('gives the result of the example in section 3', () => {
    const target = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch = {
      title: 'Hello!',
      phoneNumber: '+01-123-456-7890',
      author: { familyName: null },
      tags: ['example'],
    };
    expect(applyMergePatch(target, patch)).toEqual({
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });

  it('modifies neither input and shares no objects with them', () => {
    const target = { a: { b: [1, 2] }, c: { d: 1 } };
    const patch = { a: { e: { f: 1 } }, c: null, g: [{ h: 1 }] };
    const targetCopy = structuredClone(target);
    const patchCopy = structuredClone(patch);
    const result = applyMergePatch(target, patch) as any;
    expect(target).toEqual(targetCopy);
    expect(patch).toEqual(patchCopy);
    expect(result).toEqual({ a: { b: [1, 2], e: { f: 1 } }, g: [{ h: 1 }] });
    expect(result.a.b).not.toBe(target.a.b);
    expect(result.a.e).not.toBe(patch.a.e);
    expect(result.g).not.toBe(patch.g);
  });

  it('keeps a `__proto__` key as a key instead of changing the prototype', () => {
    const result = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as object;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__']);
  });
});

describe('applyMergePatch: arrays of objects with ids merge by id', () => {
  const target = {
    packs: [
      { id: 'scheduler', enabled: true, options: { tick: 5, zone: 'UTC' } },
      { id: 'plan', enabled: true },
    ],
  };

  it('merges an item with a known id into it, recursively (null deletes a key of the item)', () => {
    const patch = { packs: [{ id: 'scheduler', enabled: false, options: { zone: null, jitter: 2 } }] };
    expect(applyMergePatch(target, patch)).toEqual({
      packs: [
        { id: 'scheduler', enabled: false, options: { tick: 5, jitter: 2 } },
        { id: 'plan', enabled: true },
      ],
    });
  });

  it('appends an item with a new id, keeping the order of the target', () => {
    const patch = {
      packs: [
        { id: 'notes', enabled: true, extra: null },
        { id: 'plan', enabled: false },
      ],
    };
    expect(applyMergePatch(target, patch)).toEqual({
      packs: [
        { id: 'scheduler', enabled: true, options: { tick: 5, zone: 'UTC' } },
        { id: 'plan', enabled: false },
        { id: 'notes', enabled: true },
      ],
    });
  });

  it('matches numeric ids too', () => {
    expect(applyMergePatch([{ id: 1, a: 1 }], [{ id: 1, b: 2 }])).toEqual([{ id: 1, a: 1, b: 2 }]);
  });

  it('replaces an array whose target has no id items (RFC 7396), and any array with `replace`', () => {
    expect(applyMergePatch({ tools: ['a', 'b'] }, { tools: ['c'] })).toEqual({ tools: ['c'] });
    expect(applyMergePatch({ list: [] }, { list: [{ id: 'a' }] })).toEqual({ list: [{ id: 'a' }] });
    const replace = (at: readonly (string | number)[]) => at.join('.') === 'packs';
    expect(applyMergePatch(target, { packs: [] }, { replace })).toEqual({ packs: [] });
    expect(applyMergePatch(target, { packs: [{ id: 'x' }] }, { replace })).toEqual({ packs: [{ id: 'x' }] });
  });

  it('keeps every item of the target when the patch item has no id or the patch is []', () => {
    expect(applyMergePatch(target, { packs: [{ name: 'x' }] })).toEqual({
      packs: [...target.packs, { name: 'x' }],
    });
    expect(applyMergePatch(target, { packs: [] })).toEqual(target);
  });

  it('does not modify the target array', () => {
    const before = structuredClone(target);
    applyMergePatch(target, { packs: [{ id: 'plan', enabled: false }] });
    expect(target).toEqual(before);
  });
});

describe('applyMergePatch: arrays mixing plain entries and id items (tools.toolpacks)', () => {
  const toolpacks = [
    'core',
    { path: '../toolpacks/scheduler', id: 'scheduler' },
    { path: '../toolpacks/plan', id: 'plan' },
  ];

  it('patching one id item keeps the plain entries and the other items', () => {
    const patch = { tools: { toolpacks: [{ id: 'scheduler', path: './scheduler-2' }] } };
    expect(applyMergePatch({ tools: { toolpacks } }, patch)).toEqual({
      tools: {
        toolpacks: [
          'core',
          { path: './scheduler-2', id: 'scheduler' },
          { path: '../toolpacks/plan', id: 'plan' },
        ],
      },
    });
  });

  it('a plain entry the target lacks is appended, one it has is not doubled', () => {
    expect(applyMergePatch(toolpacks, ['web', 'core', { id: 'notes', path: './notes' }])).toEqual([
      ...toolpacks,
      'web',
      { id: 'notes', path: './notes' },
    ]);
  });

  it('merges by id inside nested arrays too', () => {
    const nested = { a: [{ id: 1, list: ['x', { id: 'k', v: 1 }] }] };
    expect(applyMergePatch(nested, { a: [{ id: 1, list: [{ id: 'k', v: 2 }] }] })).toEqual({
      a: [{ id: 1, list: ['x', { id: 'k', v: 2 }] }],
    });
  });
});
