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
export {
  createIdentities,
  type EditPlace,
  type IdentitiesOptions,
  type IdentityPort,
  INVALID_CODE,
  type PairingRequest,
  type PeopleFile,
} from './identities.js';
export {
  LINK_USAGE,
  type LinkRequest,
  PAIR_USAGE,
  type PairRequest,
  parseLinkArgs,
  parsePairArgs,
} from './identity-commands.js';
export {
  freePersonId,
  linkEdit,
  type PeopleEdit,
  type PeopleFacts,
  pairEdit,
  unlinkEdit,
} from './people.js';
