export { BUILTIN_ROLES, type RoleRules } from './builtin-roles.js';
export { type Action, can } from './can.js';
export {
  type AccessConfig,
  describePrincipal,
  identitiesOf,
  identitiesWithRole,
  isOwnerIdentity,
  type Principal,
  resolvePrincipal,
  roleRules,
} from './principal.js';
