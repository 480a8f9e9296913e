import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { GatewayControl } from '../../src/engine/tools/index.js';
import * as contracts from '../../src/surfaces/control/contracts.js';
import type {
  ApprovalsInbox,
  ConfigPort,
  SessionActionsPort,
  SessionEventsPort,
  SessionsView,
  StatusPort,
  ToolpacksView,
  ToolUiOptions,
  WebchatHistoryPort,
} from '../../src/surfaces/control/index.js';
import type * as toolsPage from '../../web/src/tools/types.js';
import type * as page from '../../web/src/transcript/types.js';

const root = path.resolve(import.meta.dirname, '../..');

type Answer<F extends (...args: never[]) => unknown> = Exclude<Awaited<ReturnType<F>>, undefined>;
type Listened<Port extends SessionEventsPort> = Parameters<Parameters<Port['subscribe']>[0]>[0];

/**
 * Server and page share one typed contract per route (`src/surfaces/control/contracts.ts`). What each port
 * answers is checked against its route's contract by the compiler (`npm run typecheck` fails when
 * they disagree), and the control UI (`web/`) imports the same types, declaring none of its own.
 */
describe('the control plane contracts', () => {
  it('are what the server answers, route by route (checked by the type checker)', () => {
    expectTypeOf<Answer<SessionsView['list']>>().toExtend<contracts.SessionPage>();
    expectTypeOf<Answer<SessionsView['transcript']>>().toExtend<contracts.TranscriptPage>();
    expectTypeOf<Listened<SessionEventsPort>>().toExtend<contracts.SessionStreamEvent>();
    expectTypeOf<Answer<StatusPort['status']>>().toEqualTypeOf<contracts.StatusView>();
    expectTypeOf<Answer<ApprovalsInbox['list']>>().toEqualTypeOf<{
      open: contracts.ApprovalView[];
      decided: contracts.ApprovalView[];
    }>();
    expectTypeOf<Answer<SessionActionsPort['tree']>>().toEqualTypeOf<contracts.SubagentNode[]>();
    expectTypeOf<Answer<WebchatHistoryPort['threads']>>().toEqualTypeOf<contracts.WebchatThreadView[]>();
    expectTypeOf<Answer<WebchatHistoryPort['history']>>().toExtend<contracts.WebchatHistoryPage>();
    // The page's names are the contract's types, not twins that happen to agree today.
    expectTypeOf<page.SessionSummary>().toEqualTypeOf<contracts.SessionSummary>();
    expectTypeOf<page.TranscriptEntry>().toEqualTypeOf<contracts.TranscriptEntry>();
  });

  it('cover the Tools page, /api/me and the config page (checked by the type checker)', () => {
    // The Tools page's routes answer these (each route's answer `satisfies` its contract).
    expectTypeOf<ReturnType<ToolpacksView['report']>>().toEqualTypeOf<contracts.ToolpackReport>();
    expectTypeOf<Answer<NonNullable<ToolUiOptions['toolStatus']>>>().toEqualTypeOf<
      readonly contracts.ToolStatusView[]
    >();
    expectTypeOf<ReturnType<ToolUiOptions['roster']>>().toEqualTypeOf<readonly contracts.RosterAgentView[]>();
    expectTypeOf<contracts.ToolpackReport['schedulerHooks']>().toEqualTypeOf<contracts.SchedulerHookView[]>();
    // The gateway's control answers the config routes' contracts (the app passes it as the port).
    expectTypeOf<GatewayControl>().toExtend<ConfigPort>();
    // The pages read the contracts' own types.
    expectTypeOf<toolsPage.WebuiEntryView>().toEqualTypeOf<contracts.WebuiEntryView>();
    expectTypeOf<toolsPage.RosterAgentView>().toEqualTypeOf<contracts.RosterAgentView>();
    expectTypeOf<toolsPage.ToolStatusView>().toEqualTypeOf<contracts.ToolStatusView>();
    expectTypeOf<toolsPage.SchedulerHookView>().toEqualTypeOf<contracts.SchedulerHookView>();
  });

  it('name every shape the control UI reads, so a twin of any of them in web/ is found', () => {
    const names = Object.keys(contracts);
    for (const name of [
      'WebuiEntryView',
      'RosterAgentView',
      'ToolStatusView',
      'SchedulerHookView',
      'ToolpackReport',
      'WebuiAnswer',
      'Me',
      'ConfigFileView',
      'ConfigEditBody',
      'ConfigEditAnswer',
      'ConfigPreviewView',
      'ConfigChange',
      'WebchatHistoryMessage',
      'WebchatHistoryPage',
      'WebchatThreadView',
      'WebchatThreadList',
      'PageName',
    ])
      expect(names).toContain(name);
  });

  it('are declared once: the control UI declares none of their names itself', () => {
    const names = new Set(Object.keys(contracts));
    expect(names.size).toBeGreaterThan(10);
    const twins = readdirSync(path.join(root, 'web/src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
      .flatMap((entry) => {
        const file = path.relative(root, path.join(entry.parentPath, entry.name));
        const text = readFileSync(path.join(root, file), 'utf8');
        return [...text.matchAll(/^(?:export )?(?:interface|type) ([A-Z]\w*)/gm)]
          .map((match) => match[1] ?? '')
          .filter((name) => names.has(name))
          .map((name) => `${file}: ${name}`);
      });
    expect(twins).toEqual([]);
  });

  it('are imported by the control UI as types only, from files that import only TypeBox (and each other)', () => {
    const importsOf = (file: string) =>
      [...readFileSync(path.join(root, file), 'utf8').matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    const folder = 'src/surfaces/control/contracts';
    const files = readdirSync(path.join(root, folder)).filter((name) => name.endsWith('.ts'));
    // contracts.ts only gathers the files of contracts/, one per page.
    expect(importsOf('src/surfaces/control/contracts.ts').sort()).toEqual(
      files.map((name) => `./contracts/${name.replace(/\.ts$/, '.js')}`).sort(),
    );
    for (const name of files)
      for (const source of importsOf(`${folder}/${name}`))
        expect(`${name}: ${source}`).toMatch(/: (@sinclair\/typebox|\.\/[a-z-]+\.js)$/);
  });
});
