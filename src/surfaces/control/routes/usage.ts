import type { FastifyInstance } from 'fastify';
import { type AccessPolicy, requireOwner } from '../../http/index.js';

const PERIODS = ['today', 'week'] as const;
const GROUPINGS = ['agent', 'channel', 'user'] as const;

/** Tokens and cost summed over model calls; `cost` only when some call had a price. */
export interface UsageTotalsView {
  inputTokens: number;
  outputTokens: number;
  calls: number;
  cost?: number;
  /** Of `calls`, those counted with an estimate (the server reported no usage); absent when none. */
  estimatedCalls?: number;
}

/** What `GET /api/usage` answers: one row per agent, channel or user (most tokens first) and the total. */
export interface UsageView {
  period: (typeof PERIODS)[number];
  by: (typeof GROUPINGS)[number];
  /** `budgets.timeZone`: the zone whose midnight starts a usage day. */
  timeZone: string;
  /** The first and last usage day counted (`YYYY-MM-DD`). */
  from: string;
  to: string;
  rows: (UsageTotalsView & { name: string })[];
  total: UsageTotalsView;
}

/** What the route needs of the usage ledger; the gateway passes the ledger. */
export interface UsagePort {
  report(query: { period: UsageView['period']; by: UsageView['by'] }): Promise<UsageView>;
}

/**
 * `GET /api/usage?period=today|week&by=agent|channel|user`, owner-only: the usage report `/usage`
 * shows (defaults today, agent). An unknown key or value is a 400 naming it and what is accepted.
 */
export function registerUsageRoute(
  app: FastifyInstance,
  options: { usage: UsagePort; access: AccessPolicy },
): void {
  app.get<{ Querystring: { period?: string; by?: string } }>(
    '/api/usage',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { period: { type: 'string' }, by: { type: 'string' } },
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      if (!requireOwner(request, reply, options.access)) return reply;
      const { period = 'today', by = 'agent' } = request.query;
      if (!isOneOf(PERIODS, period)) return reply.code(400).send(badValue('period', period, PERIODS));
      if (!isOneOf(GROUPINGS, by)) return reply.code(400).send(badValue('by', by, GROUPINGS));
      return options.usage.report({ period, by });
    },
  );
}

function badValue(field: string, value: string, accepted: readonly string[]) {
  return {
    error: 'bad_request',
    field,
    message: `${field}: "${value}" is not one of ${accepted.join(', ')}`,
  };
}

function isOneOf<Word extends string>(words: readonly Word[], word: string): word is Word {
  return (words as readonly string[]).includes(word);
}
