import type { ChatCommand } from './types.js';

export const compactCommand: ChatCommand = {
  name: 'compact',
  summary: "Summarize this session's older entries into one, so it takes less of the model's context.",
  async run({ compact, queues, sessionKey }) {
    if (queues.status(sessionKey) !== 'idle')
      return 'A turn is running or waiting in this session: try /compact when it ends.';
    const result = await compact();
    if (result.status === 'nothing') return `Nothing to compact: ${result.reason}.`;
    if (result.status === 'failed') return `Compaction failed (the session is unchanged): ${result.reason}`;
    const count = (value: number) => value.toLocaleString('en-US');
    return (
      `Compacted ${count(result.summarized)} entr${result.summarized === 1 ? 'y' : 'ies'} into a summary: ` +
      `about ${count(result.tokensBefore)} tokens of history before, ${count(result.tokensAfter)} after.`
    );
  },
};
