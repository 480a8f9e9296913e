// Every plan tool runs in the controller (the gateway process), which owns the plan state file.
const TOOLS = ['plan.create', 'plan.status', 'plan.update', 'plan.set_item_status', 'plan.close'];

export function createRunnerToolpack(context) {
  return {
    tools: Object.fromEntries(TOOLS.map((tool) => [tool, (input) => context.callSupport(tool, input ?? {})])),
  };
}
