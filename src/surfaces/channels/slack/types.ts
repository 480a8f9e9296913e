import type { Config } from '../../../base/config/index.js';

/** The `channels.slack` config (with schema defaults applied). */
export type SlackConfig = NonNullable<Config['channels']['slack']>;

/** The Web API base the client calls: `apiUrl` or Slack's, always ending in `/` as the client expects. */
export function slackApiUrl(config: Pick<SlackConfig, 'apiUrl'>): string {
  const url = config.apiUrl ?? 'https://slack.com/api/';
  return url.endsWith('/') ? url : `${url}/`;
}

/** The fields of a Slack `message` / `app_mention` event the adapter reads. */
export interface RawMessageEvent {
  type: string;
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  parent_user_id?: string;
  team?: string;
  /** Files shared with the message (`file_share`). */
  files?: RawSlackFile[];
}

/** The fields of an Events API envelope body the adapter reads. */
export interface RawEventBody {
  event_id?: string;
  team_id?: string;
}

/** The fields of a file in a Slack event the adapter reads. */
export interface RawSlackFile {
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private_download?: string;
  url_private?: string;
}

/** Who the bot is on Slack (`auth.test` at start); both unknown before the first start. */
export interface SlackIdentity {
  botUserId: string | undefined;
  botId: string | undefined;
}
