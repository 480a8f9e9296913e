export { ConfigError, type ConfigIssue, type ErrorCode, SwitchboardError } from './coded-errors.js';
export { errorText } from './error-text.js';
export { fail, ok, type Result } from './result.js';
