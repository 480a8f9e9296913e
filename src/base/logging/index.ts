export {
  DEFAULT_LOG_FILE,
  type LogFileOptions,
  listLogFiles,
  logFileOptions,
} from './log-file.js';
export { formatLogLine } from './log-format.js';
export { LogRing, type RecentLogLine } from './log-ring.js';
export { type FollowLogOptions, followLog, readLastLines, readLastLinesOf } from './log-tail.js';
export {
  type CreateLoggerOptions,
  createLogger,
  type Logger,
  type LoggerHandle,
  type LogLevel,
} from './logger.js';
