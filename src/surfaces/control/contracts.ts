// The control plane's HTTP contracts: one TypeBox schema per route answer, the one declaration of
// each shape. The server's routes answer `Static<typeof X>`; the control UI (`web/`) imports these
// types only (`import type`), so a change to a shape fails the side that disagrees at compile
// time (`test/unit/control-contracts.test.ts`). Dependency-free: it imports TypeBox and nothing else.
// Split by page into contracts/, each file importing TypeBox and its siblings only.

export * from './contracts/config.js';
export * from './contracts/me.js';
export * from './contracts/operations.js';
export * from './contracts/people.js';
export * from './contracts/sessions.js';
export * from './contracts/setup.js';
export * from './contracts/tools.js';
export * from './contracts/webchat.js';
