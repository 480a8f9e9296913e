import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Result } from '../../../base/errors/index.js';
import type { DeliveryRoute } from '../../../base/messages/index.js';
import { type AccessPolicy, identityOf, NO_QUERY, requireOwner, senderIdOf } from '../../http/index.js';
import {
  type ConfigChange,
  type ConfigChangeView,
  type ConfigEditAnswer,
  ConfigEditBody,
  type ConfigEditOutcomeView,
  type ConfigFileView,
  type ConfigHistoryView,
  type ConfigPreviewView,
  ConfigUndoBody,
} from '../contracts.js';
import { sendRefusal } from './config-refusal.js';
import type { SetupPort } from './setup.js';

/** An edit as the config port takes it: an owner's, as if typed as `/config` (`via: 'command'`). */
export interface ConfigEditRequestView {
  raw: string;
  baseHash: string;
  note?: string | undefined;
  /** The session whose chat gets the restart note: the owner's own web chat session. */
  sessionKey: string;
  route?: DeliveryRoute | undefined;
  actor: string;
  via: 'command';
  /** The form's confirmation that the operator (webchat:local) is meant to leave owners. */
  allowOperatorLockout?: boolean;
  /** Dot paths the patch replaces whole (the Setup page's `models.default`). */
  replacePaths?: readonly string[];
}

/**
 * What the config routes need of the gateway, declared here (http may not import tools): the
 * gateway passes its `GatewayControl`, whose edits check the hash, validate, run the start check,
 * audit, and restart with a note. Every refusal is an error result naming what is wrong.
 */
export interface ConfigPort {
  configGet(): Promise<Result<ConfigFileView>>;
  configPreview(action: EditAction, request: ConfigEditRequestView): Promise<Result<ConfigPreviewView>>;
  configEdit(action: EditAction, request: ConfigEditRequestView): Promise<Result<ConfigEditOutcomeView>>;
  configHistory(): Promise<Result<ConfigChange[]>>;
  configChange(number: number): Promise<Result<ConfigChangeView>>;
  configUndo(
    number: number,
    request: Omit<ConfigEditRequestView, 'raw' | 'via'>,
  ): Promise<Result<ConfigEditOutcomeView>>;
}

type EditAction = 'config.patch' | 'config.apply';

export interface ConfigRoutesOptions {
  control: ConfigPort;
  /** The config's JSON schema (the TypeBox source, with its descriptions and `x-secret` marks). */
  schema: object;
  access: AccessPolicy;
  /** The web chat session (and its chat) of `user` with no thread: where the restart note goes. */
  noteSession(user: string): { sessionKey: string; route: DeliveryRoute };
  /** The Setup page's steps (`/api/config/setup`), when given. */
  setup?: SetupPort | undefined;
}

/** A route that takes nothing but the path: every query key is a 400 naming it. */
const NONE = { schema: { querystring: NO_QUERY } };

const NumberParams = Type.Object(
  { number: Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'A change number.' }) },
  { additionalProperties: false },
);

/**
 * The config page's API, owner-only (403 naming the sender before anything else is read): the
 * redacted file and its hash, the schema, preview (the diff) and edit, the audit history with
 * each change's diff, and undo. An edit's answer says where to look for the restart note.
 */
/** An edit's or undo's answer: its outcome, and where and since when its restart note is looked for. */
const noted =
  (sessionKey: string, since: string) =>
  (outcome: ConfigEditAnswer['outcome']): ConfigEditAnswer => ({ outcome, note: { sessionKey, since } });

export function registerConfigRoutes(app: FastifyInstance, options: ConfigRoutesOptions): void {
  const { control } = options;
  void app.register(async (scope) => {
    scope.addHook('preValidation', async (request, reply) => {
      if (!requireOwner(request, reply, options.access)) return reply;
    });
    scope.get('/api/config', NONE, async (_request, reply) => answer(reply, await control.configGet()));
    scope.get('/api/config/schema', NONE, async () => options.schema);
    scope.post<{ Body: Static<typeof ConfigEditBody> }>(
      '/api/config/preview',
      { schema: { querystring: NO_QUERY, body: ConfigEditBody } },
      async (request, reply) => {
        const { action, edit } = editOf(request, options);
        return answer(reply, await control.configPreview(action, edit));
      },
    );
    scope.post<{ Body: Static<typeof ConfigEditBody> }>(
      '/api/config',
      { schema: { querystring: NO_QUERY, body: ConfigEditBody } },
      async (request, reply) => {
        const { action, edit } = editOf(request, options);
        const since = new Date().toISOString();
        return answer(reply, await control.configEdit(action, edit), noted(edit.sessionKey, since));
      },
    );
    scope.get('/api/config/history', NONE, async (_request, reply) =>
      answer(reply, await control.configHistory(), (changes): ConfigHistoryView => ({ changes })),
    );
    scope.get<{ Params: Static<typeof NumberParams> }>(
      '/api/config/history/:number',
      { schema: { querystring: NO_QUERY, params: NumberParams } },
      async (request, reply) => answer(reply, await control.configChange(Number(request.params.number))),
    );
    scope.post<{ Params: Static<typeof NumberParams>; Body: Static<typeof ConfigUndoBody> }>(
      '/api/config/history/:number/undo',
      { schema: { querystring: NO_QUERY, params: NumberParams, body: ConfigUndoBody } },
      async (request, reply) => {
        const number = Number(request.params.number);
        const { edit } = editOf(request, options, `control UI config.undo ${number}`);
        const { raw: _raw, via: _via, ...undo } = edit;
        const since = new Date().toISOString();
        return answer(reply, await control.configUndo(number, undo), noted(edit.sessionKey, since));
      },
    );
  });
}

interface EditFields {
  action?: 'patch' | 'apply';
  raw?: string;
  baseHash: string;
  note?: string | undefined;
  allowOperatorLockout?: boolean | undefined;
}

/** The edit of a request: the owner's sender id, their web chat session for the note. */
function editOf(
  request: FastifyRequest<{ Body: EditFields }>,
  options: ConfigRoutesOptions,
  what = `control UI config.${request.body.action}`,
): { action: EditAction; edit: ConfigEditRequestView } {
  const identity = identityOf(request);
  const actor = senderIdOf(identity);
  const { sessionKey, route } = options.noteSession(identity.user);
  const { body } = request;
  return {
    action: body.action === 'apply' ? 'config.apply' : 'config.patch',
    edit: {
      raw: body.raw ?? '',
      baseHash: body.baseHash,
      note: body.note ?? `${what} by ${actor}`,
      sessionKey,
      route,
      actor,
      via: 'command',
      ...(body.allowOperatorLockout ? { allowOperatorLockout: true } : {}),
    },
  };
}

function answer<T>(reply: FastifyReply, result: Result<T>, shape: (value: T) => unknown = (value) => value) {
  if (!result.ok) return sendRefusal(reply, result.error);
  return shape(result.value);
}
