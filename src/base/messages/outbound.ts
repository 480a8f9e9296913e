import type { DeliveryRoute, OutboundFile, OutboundMessage } from './types.js';

/**
 * Where the gateway's words for one chat go: a turn's replies, the parts of a reply still being
 * written, its status lines and files, and the gateway's own posts and notices. `channels/` builds
 * one per route (`OutboundFor`, like bolt-js's `createSay`); whoever speaks to a chat holds one.
 * It is an interface so that a later outbox (several gateway instances) can stand behind it.
 */
export interface Outbound {
  /** Sends a complete reply or post; an `internal` route is recorded elsewhere, never sent. */
  reply(message: OutboundMessage): Promise<void>;
  /** Part of reply `id` while it is written, where the channel streams; otherwise nothing. */
  delta(id: string, delta: string): void;
  /** A short status line ("running schedule.once…") the route's next reply replaces, where the channel streams. */
  status(text: string): void;
  /** Uploads a file to the chat (its thread); false when its channel takes no files. */
  file(file: OutboundFile): Promise<boolean>;
}

/** The `Outbound` of a route. */
export type OutboundFor = (route: DeliveryRoute) => Outbound;
