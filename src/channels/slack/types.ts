import type { Config } from '../../config/index.js';
import type { RawSlackFile } from './slack-files.js';

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
