// The runner side of the scheduler: every tool forwards to the controller, which owns jobs.json.
const TOOLS = ['schedule.once', 'schedule.recurring', 'schedule.list', 'schedule.cancel'];

export function createRunnerToolpack(context) {
  const tools = {};
  for (const name of TOOLS) tools[name] = (input) => context.callSupport(name, input ?? {});
  return { tools };
}
