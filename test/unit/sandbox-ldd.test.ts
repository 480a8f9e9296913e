import { describe, expect, it } from 'vitest';
import { lddPaths } from '../../src/extensions/toolpacks/runner/sandbox.js';

// The runner sandbox binds the libraries `ldd` names for Node: what is read from its answer.

describe('lddPaths', () => {
  it('takes each resolved library and the loader, and skips the vDSO and libraries not found', () => {
    const answer = [
      '\tlinux-vdso.so.1 (0x00007ffd5d1f2000)',
      '\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f2b1c9e0000)',
      '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f2b1c600000)',
      '\tlibmissing.so.1 => not found',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f2b1ca10000)',
    ].join('\n');
    expect(lddPaths(answer)).toEqual([
      '/lib/x86_64-linux-gnu/libdl.so.2',
      '/lib/x86_64-linux-gnu/libstdc++.so.6',
      '/lib64/ld-linux-x86-64.so.2',
    ]);
  });

  it('names nothing for a static executable', () => {
    expect(lddPaths('\tnot a dynamic executable\n')).toEqual([]);
  });
});
