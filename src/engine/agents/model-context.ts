import type { TranscriptEntry } from '../../records/sessions/index.js';
import { describeFiles, imagesOf } from './model-files.js';
import type { ModelMessage } from './providers/index.js';

const MISSING_RESULT = 'No result: the run ended before this tool call finished.';

/**
 * The markers the gateway puts before text it did not take from the model: `⟦system⟧` before a
 * runtime entry (signal, announcement, note), `⟦<sender id>⟧` before a user's words in a channel.
 * Nobody else can write them: `⟦` and `⟧` in any entry's text reach the model as `[` and `]`.
 */
export const SYSTEM_MARKER = '⟦system⟧';
export const senderMarker = (senderId: string) => `⟦${plain(senderId)}⟧`;

/** Text with the marker brackets made ordinary, so it cannot pass for the gateway's words. */
function plain(text: string): string {
  return text.replaceAll('⟦', '[').replaceAll('⟧', ']');
}

/**
 * Turns transcript entries into the model's conversation. The window starts at a user or system entry
 * (never in the middle of a tool exchange), every tool call gets a result (a run cut short
 * leaves calls without one, which providers reject), runtime entries carry SYSTEM_MARKER, and in
 * channels each user message is prefixed with its sender's marker, since several people talk there.
 */
export function toModelMessages(
  entries: readonly TranscriptEntry[],
  options: { multiUser: boolean },
): ModelMessage[] {
  // A turn the runtime started (signals, announcements) may open with a system entry.
  const start = entries.findIndex((entry) => entry.role === 'user' || entry.role === 'system');
  const window = start < 0 ? [] : entries.slice(start);
  const messages: ModelMessage[] = [];
  let open: { id: string; name: string }[] = [];

  const closeOpenCalls = () => {
    for (const call of open) {
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: MISSING_RESULT,
        isError: true,
      });
    }
    open = [];
  };

  for (const entry of window) {
    if (entry.role === 'tool') {
      const index = open.findIndex((call) => call.id === entry.toolCallId);
      if (index < 0) continue; // a result whose call is outside the window
      open.splice(index, 1);
      messages.push(toMessage(entry, options));
      continue;
    }
    closeOpenCalls();
    messages.push(toMessage(entry, options));
    if (entry.role === 'assistant' && entry.toolCalls)
      open = entry.toolCalls.map(({ id, name }) => ({ id, name }));
  }
  closeOpenCalls();
  return messages;
}

/** One entry as the model sees it. */
export function toMessage(entry: TranscriptEntry, options: { multiUser: boolean }): ModelMessage {
  if (entry.role === 'tool') {
    return {
      role: 'tool',
      toolCallId: entry.toolCallId ?? '',
      toolName: entry.toolName ?? '',
      content: entry.text,
      ...(entry.isError ? { isError: true } : {}),
    };
  }
  if (entry.role === 'assistant') {
    return {
      role: 'assistant',
      content: entry.text,
      ...(entry.toolCalls?.length ? { toolCalls: entry.toolCalls } : {}),
    };
  }
  if (entry.role === 'system') return { role: 'user', content: `${SYSTEM_MARKER} ${plain(entry.text)}` };
  const prefix = options.multiUser && entry.senderId ? `${senderMarker(entry.senderId)} ` : '';
  const content = `${prefix}${plain(entry.text)}`;
  if (!entry.files?.length) return { role: 'user', content };
  const images = imagesOf(entry.files);
  return {
    role: 'user',
    content: `${content}\n${plain(describeFiles(entry.files))}`,
    ...(images.length > 0 ? { images } : {}),
  };
}
