export {
  CODE_ALPHABET,
  type CodeBook,
  type CodeBookOptions,
  type CodeEntry,
  type CodeKind,
  createCodeBook,
  type IssueOutcome,
  normalizeCode,
  type RedeemOutcome,
  showCode,
} from './code-book.js';
