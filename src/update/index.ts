export { relocateBuildRecord } from './build-record.js';
export { createUpdateLedger, isActive, type UpdateLedger, updateDir } from './ledger.js';
export {
  createUpdateService,
  describeRun,
  PACKAGE_ROOT,
  type UpdateRequest,
  type UpdateService,
  type UpdateServiceOptions,
  type UpdateStarted,
} from './service.js';
export { createVersionProbe, describeCheck } from './source.js';
export type { UpdateCheck, UpdatePhase, UpdateRun, UpdateVersion } from './types.js';
export { noteId, noteText, runUpdater, type UpdaterOptions } from './updater.js';
