/**
 * A platform's direct-message channel per user: learnt from the DMs and clicks that arrive, else
 * opened on the platform (Slack `conversations.open`, Discord `users.createDM`) once and kept.
 */
export interface DirectChannels {
  /** `channelId` is the DM channel with `userId` (an inbound DM or click said so). */
  learn(userId: string, channelId: string): void;
  /** The DM channel with `userId`: known, or opened with `open` (its failure rejects). */
  resolve(userId: string): Promise<string>;
}

export function createDirectChannels(open: (userId: string) => Promise<string>): DirectChannels {
  const known = new Map<string, string>();
  return {
    learn: (userId, channelId) => void known.set(userId, channelId),
    async resolve(userId) {
      const found = known.get(userId);
      if (found !== undefined) return found;
      const opened = await open(userId);
      known.set(userId, opened);
      return opened;
    },
  };
}
