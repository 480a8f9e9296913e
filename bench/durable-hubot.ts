import { Adapter, type Envelope, Robot, TextMessage, User } from 'hubot';
import type { Send } from './durable-drive.js';

/**
 * The peer of the durable bench: Hubot 14 with its own in-memory routing (no brain persistence,
 * no HTTP daemon), an in-process adapter and one `hear` listener that replies, driven by the same
 * drivers, message count and concurrency as Switchboard. A message is answered when the adapter's
 * `send` has the reply for its id.
 */

export const HUBOT_REPLY = 'No model is configured; your message was received.';

class BenchAdapter extends Adapter {
  readonly waiting = new Map<string, (text: string) => void>();

  override async send(envelope: Envelope, ...strings: string[]): Promise<void> {
    const done = this.waiting.get(envelope.message.id);
    this.waiting.delete(envelope.message.id);
    done?.(strings.join('\n'));
  }

  override async run(): Promise<void> {}
}

export interface HubotPeer {
  send: Send;
  close(): void;
}

export async function startHubot(text: string): Promise<HubotPeer> {
  // Hubot logs through pino at HUBOT_LOG_LEVEL (default info): quiet, as the gateway's warn level.
  process.env.HUBOT_LOG_LEVEL ??= 'warn';
  let adapter: BenchAdapter | undefined;
  const robot = new Robot(
    {
      use(owner) {
        adapter = new BenchAdapter(owner);
        return adapter;
      },
    },
    false,
    'Hubot',
  );
  await robot.loadAdapter();
  robot.hear(/.*/, (response) => response.send(HUBOT_REPLY));
  await robot.run();
  const own = adapter;
  if (!own) throw new Error('Hubot did not load the bench adapter');
  const users = new Map<string, User>();
  let id = 0;
  return {
    async send(_index, user) {
      let sender = users.get(user);
      if (!sender) {
        sender = new User(user, { name: user, room: user });
        users.set(user, sender);
      }
      const messageId = `m${id++}`;
      const reply = new Promise<string>((resolve) => own.waiting.set(messageId, resolve));
      await robot.receive(new TextMessage(sender, text, messageId));
      const answer = await Promise.race([reply, Promise.resolve(undefined)]);
      return answer === HUBOT_REPLY ? undefined : `no reply to ${messageId}`;
    },
    close: () => robot.shutdown(),
  };
}
