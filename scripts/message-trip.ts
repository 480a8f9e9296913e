// Prints the files a Slack message crosses from the Slack adapter's receive to the reply's post
// (issue 29: a message's trip, goal ≤ 12 files), and the folder boundaries between them.
// Run: `npx tsx scripts/message-trip.ts`. The trip is a curated list of hops, each checked against
// the code as it is: the caller's text holds the call, and the callee is reached either by an
// import the caller makes (resolved through the folder's index.ts when it goes through one) or
// through a port the composition root fills (then the callee's text holds the implementation).
// A hop that no longer holds fails the script (exit 1): edit the list when the code moves.
// Counted: the plain reply path with metrics off (with metrics on, `observe-turns.ts` and
// `observe-channels.ts` wrap the runner and the outbound; with streaming, `slack-stream.ts` posts).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { conceptOf, readSources, relativeImports, resolveImport } from '../test/helpers/import-graph.js';

interface Hop {
  /** The file the trip is in, and the call it makes to go on (text found in the file). */
  file: string;
  call: string;
  /** Where the call leads: an import, or a port filled by the composition root (`implementedBy` found in `next`). */
  via: { import: true } | { port: string; implementedBy: string };
}

const SRC = 'src';
const trip: Hop[] = [
  {
    file: 'surfaces/channels/slack/slack-receive.ts',
    call: 'await handler(message',
    via: { port: 'InboundHandler', implementedBy: 'readonly dispatch = async (' },
  },
  { file: 'engine/routing/router.ts', call: 'this.#intake.accept(', via: { import: true } },
  {
    file: 'engine/routing/intake.ts',
    call: 'this.#options.queues.enqueue(',
    via: { port: 'SessionQueues', implementedBy: 'enqueue(state, target, message)' },
  },
  { file: 'engine/routing/session-queues.ts', call: 'runQueueTurn(', via: { import: true } },
  {
    file: 'engine/routing/queue-turn.ts',
    call: 'options.runner.runTurn(',
    via: { port: 'TurnRunner', implementedBy: 'runTurn: (request, session) =>' },
  },
  { file: 'engine/agents/agent-runner.ts', call: 'createTurnStream(', via: { import: true } },
  {
    file: 'engine/agents/turn-stream.ts',
    call: 'await run(emit)',
    via: { port: 'the runner closure', implementedBy: 'runTurnLoop(' },
  },
  { file: 'engine/agents/agent-runner.ts', call: 'runTurnLoop(', via: { import: true } },
  { file: 'engine/agents/turn-loop.ts', call: 'runToolLoop(', via: { import: true } },
  {
    file: 'engine/agents/tool-loop.ts',
    call: "options.emit({ type: 'reply'",
    via: { port: 'TurnStream (the queue iterates it)', implementedBy: 'for await (const event of turn)' },
  },
  {
    file: 'engine/routing/queue-turn.ts',
    call: 'outbound.reply(reply)',
    via: { port: 'Outbound', implementedBy: 'export function createOutboundFor(' },
  },
  {
    file: 'surfaces/channels/outbound.ts',
    call: 'adapter.send(route, message)',
    via: { port: 'ChannelAdapter', implementedBy: 'sender.post(route, message)' },
  },
  {
    file: 'surfaces/channels/slack/slack-adapter.ts',
    call: 'sender.post(route, message)',
    via: { import: true },
  },
  {
    file: 'surfaces/channels/slack/slack-send.ts',
    call: 'chat.postMessage',
    via: { port: 'the Slack Web API', implementedBy: '' },
  },
];

const root = path.resolve(import.meta.dirname, '..');
const sources = new Map(readSources(root).map((source) => [source.file, source.text]));
const textOf = (file: string) => sources.get(`${SRC}/${file}`);
const problems: string[] = [];

/** Whether `from` imports `to`, directly or through the index.ts of `to`'s folder (a barrel re-exporting it). */
function imports(from: string, to: string): boolean {
  const targets = relativeImports(textOf(from) ?? '').map((specifier) =>
    resolveImport(`${SRC}/${from}`, specifier),
  );
  const wanted = `${SRC}/${to}`.replace(/\.ts$/, '.js');
  if (targets.includes(wanted)) return true;
  const barrel = `${path.posix.dirname(`${SRC}/${to}`)}/index.js`;
  const barrelText = sources.get(barrel.replace(/\.js$/, '.ts')) ?? '';
  const reexports = relativeImports(barrelText).map((specifier) => resolveImport(barrel, specifier));
  return targets.includes(barrel) && reexports.includes(wanted);
}

for (const [index, hop] of trip.entries()) {
  const text = textOf(hop.file);
  if (text === undefined || !existsSync(path.join(root, SRC, hop.file))) {
    problems.push(`${hop.file}: not found`);
    continue;
  }
  if (!text.includes(hop.call)) problems.push(`${hop.file}: no call \`${hop.call}\``);
  const next = trip[index + 1];
  if (!next) continue;
  if ('import' in hop.via) {
    if (!imports(hop.file, next.file)) problems.push(`${hop.file} does not import ${next.file}`);
  } else if (!(textOf(next.file) ?? '').includes(hop.via.implementedBy)) {
    problems.push(
      `${next.file}: no \`${hop.via.implementedBy}\` (the ${hop.via.port} the trip goes through)`,
    );
  }
}

const files = [...new Set(trip.map((hop) => hop.file))];
let boundaries = 0;
console.log('A Slack message, from the adapter receiving it to the reply posted:\n');
for (const [index, hop] of trip.entries()) {
  const previous = trip[index - 1];
  const concept = conceptOf(`${SRC}/${hop.file}`);
  const crossed = previous !== undefined && conceptOf(`${SRC}/${previous.file}`) !== concept;
  if (crossed) boundaries += 1;
  const via = 'import' in hop.via ? 'import' : hop.via.port;
  console.log(
    `${String(index + 1).padStart(2)}. ${crossed ? '→ ' : '  '}src/${hop.file}  ${hop.call}  [${via}]`,
  );
}
console.log(
  `\nfiles: ${files.length} (goal ≤ 12); folder boundaries crossed: ${boundaries}; hops: ${trip.length}`,
);
if (problems.length > 0) {
  console.log(`\nthe trip no longer holds (edit scripts/message-trip.ts):\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
