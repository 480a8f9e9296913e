// Reading tool and WebUI input: the delivery fields every job has, and typed optional values.

import { inputError } from './errors.mjs';

const PRIORITIES = ['P0', 'P1', 'P2', 'P3'];

/** sender, recipient or channel (checked against the roster and routes), priority, waitForQuiet, body. */
export function deliveryFields(context, args) {
  const body = requiredString(args.body, 'body');
  const sender = optionalString(args.sender, 'sender') ?? 'scheduler';
  const priority = optionalString(args.priority, 'priority') ?? 'P3';
  if (!PRIORITIES.includes(priority)) {
    throw inputError(`priority must be one of ${PRIORITIES.join(', ')}, got ${JSON.stringify(priority)}`);
  }
  const waitForQuiet = optionalBoolean(args.waitForQuiet, 'waitForQuiet') ?? false;
  const recipient = optionalString(args.recipient, 'recipient');
  const channel = optionalString(args.channel, 'channel');
  if (recipient !== undefined && channel !== undefined) {
    throw inputError('give either recipient or channel, not both');
  }
  const common = { sender, priority, waitForQuiet, body };
  if (channel !== undefined) {
    const channels = context.store.config().channels ?? [];
    if (!channels.includes(channel)) {
      const known = channels.length > 0 ? channels.join(', ') : 'none configured';
      throw inputError(`unknown channel ${channel} (routes: ${known})`);
    }
    return { ...common, channel };
  }
  const agents = context.store.listAgents();
  const target = recipient ?? defaultRecipient(context, agents);
  if (target !== 'user' && !agents.some((agent) => agent.id === target)) {
    const known = agents.map((agent) => agent.id).join(', ') || 'none';
    throw inputError(`unknown recipient ${target} (agents: ${known}, or user)`);
  }
  return { ...common, recipient: target };
}

function defaultRecipient(context, agents) {
  const coordinator = context.store.config().communication?.coordinatorAgent;
  if (agents.some((agent) => agent.id === coordinator)) return coordinator;
  return agents[0]?.id ?? 'user';
}

export function objectInput(input) {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw inputError('the input must be an object');
  }
  return input;
}

export function requiredString(value, name) {
  if (typeof value !== 'string' || value.trim() === '')
    throw inputError(`${name} is required (a non-empty string)`);
  return value;
}

/** A trimmed non-empty string, or undefined when absent or blank (forms send ''). */
export function optionalString(value, name) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw inputError(`${name} must be a string, got ${JSON.stringify(value)}`);
  return value.trim() === '' ? undefined : value.trim();
}

export function optionalBoolean(value, name) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw inputError(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}
