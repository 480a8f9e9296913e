export {
  type CreateLoggerOptions,
  createLogger,
  type Logger,
  type LoggerHandle,
  type LogLevel,
} from './logger.js';
