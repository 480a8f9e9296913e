import { Type } from '@sinclair/typebox';
import { AGENT_EDITABLE_KEYWORD, Strict, StringEnum, TOOL_PROTECTED_KEYWORD } from './schema-helpers.js';

/** A tool name, `namespace.*` or `*`: the keys of an approval policy. */
export const TOOL_PATTERN = '^(\\*|[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*(\\.\\*)?)$';

const ApprovalPolicyTable = Type.Record(
  Type.String(),
  StringEnum(['ask', 'auto', 'deny'] as const, {
    description: '`ask`: wait for an approver; `auto`: run; `deny`: refuse (the model reads why).',
  }),
  {
    propertyNames: { pattern: TOOL_PATTERN },
    default: {},
    description:
      'Policy per tool: an exact name, `namespace.*` or `*`; the exact name wins, then the longest pattern. Tools not listed keep their default: `ask` for `gateway` edits and restarts, `shell.exec`, toolpack tools marked risky, and `messages.send` to a route outside the current chat; `auto` for the rest.',
  },
);

/** `approvals`: which tool calls wait for a human, who decides and where the request appears. */
export const ApprovalsSchema = Strict(
  {
    tools: ApprovalPolicyTable,
    approvers: Type.Optional(
      Type.Array(
        Type.String({
          pattern: '^((webchat|slack|discord):.+|role:[a-z0-9][a-z0-9_-]{0,63})$',
          description: 'An approver: a sender id, or `role:<name>` for every person with that role.',
        }),
        {
          uniqueItems: true,
          description:
            'Whose decisions count: sender ids (`slack:U…`, `discord:<id>`, `webchat:<user>`) and roles (`role:operator`: every identity of every person with that role; `role:owner` also takes `owners`). Default: the owners (`owners` and every person whose role is `owner`).',
        },
      ),
    ),
    separateDuties: Type.Union(
      [
        Type.Boolean(),
        Type.Array(Type.String({ pattern: TOOL_PATTERN }), { uniqueItems: true, minItems: 1 }),
      ],
      {
        default: false,
        description:
          'Separation of duties: the person whose turn made a call can never approve it, whatever their role (button, `/approve`, the Approvals page): `true` for every tool, or a list of tools (`shell.exec`, `gateway`, `namespace.*`). With no other approver the request says so and is denied when it times out.',
      },
    ),
    post: StringEnum(['chat', 'direct', 'both'] as const, {
      default: 'chat',
      description:
        "Where a request appears: the chat whose turn asked (`chat`), each approver's direct messages on the same platform (`direct`), or both. A session no chat reads (a sub-agent's, a main session) posts to the approvers' direct messages.",
    }),
    timeoutSeconds: Type.Integer({
      minimum: 10,
      maximum: 604800,
      default: 600,
      description: 'A request nobody decides in this time is denied.',
    }),
    maxOpenPerRequester: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 3,
      description:
        "Open approval requests one requester may have at once (the sender of a non-owner turn, or the user who caused a runtime turn: spawned the sub-agent, sent the message). A call beyond it is refused at once, with the reason, and asks nobody. Owners' turns are not bounded.",
    }),
  },
  {
    default: {},
    description:
      'Approvals: tool calls that wait for a human. Requests and decisions are appended to `<stateDir>/approvals-audit.jsonl`.',
    // The model must not change who approves it or what needs approval.
    [TOOL_PROTECTED_KEYWORD]: true,
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);

/** `agents.<id>.approvals`: the agent's own policy, over `approvals.tools`. */
export const AgentApprovalsSchema = Strict(
  { tools: ApprovalPolicyTable },
  {
    default: {},
    description:
      'This agent\'s approval policy per tool, over `approvals.tools` ("always for this tool in this agent" writes `auto` here).',
    [TOOL_PROTECTED_KEYWORD]: true,
  },
);
