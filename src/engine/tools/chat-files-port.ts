import type { DeliveryRoute } from '../../base/messages/index.js';

/** What `chat.attach` asks of the gateway: one workspace file of the agent, sent to a chat. */
export interface ChatAttachRequest {
  agentId: string;
  route: DeliveryRoute;
  /** A `/workspace/…` path (or one relative to `/workspace`). */
  path: string;
  comment?: string;
}

export type ChatAttachOutcome = { ok: true; name: string; size: number } | { ok: false; reason: string };

/**
 * Sends files to chats (the gateway's: it reads the agent's workspace and hands the bytes to the
 * route's channel). Expected failures (no such file, too large, a chat without uploads) are
 * outcomes; a platform's refusal is one too, its error in words.
 */
export interface ChatFilesPort {
  attach(request: ChatAttachRequest): Promise<ChatAttachOutcome>;
}
