// The health page's cards, one per part of the gateway, from `GET /api/status`. Every text here
// (a reason, an error) comes from the gateway, scrubbed of secrets, and is shown as text.

import type { McpServerView, StatusView } from '../../../src/surfaces/control/contracts.js';
import { durationText, relativeTime } from '../time.js';

export type { McpServerView, StatusView };

/** `ok` (green), `warn` or `bad`: the card's mark, always with a word beside it. */
export type Mark = 'ok' | 'warn' | 'bad';

export function State({ mark, children }: { mark: Mark; children: string }) {
  return <span class={`state ${mark}`}>{children}</span>;
}

const channelMark = (state: string): Mark =>
  state === 'connected' ? 'ok' : state === 'refused' ? 'bad' : 'warn';

export function GatewayCard({ status }: { status: StatusView }) {
  return (
    <article class="card health-card" aria-labelledby="health-gateway">
      <h3 id="health-gateway">Gateway</h3>
      <dl>
        <dt>Version</dt>
        <dd class="version">{status.version}</dd>
        <dt>Uptime</dt>
        <dd class="uptime">{durationText(status.uptimeSeconds)}</dd>
        <dt>Started</dt>
        <dd>
          <time dateTime={status.startedAt}>{new Date(status.startedAt).toLocaleString()}</time>
        </dd>
      </dl>
    </article>
  );
}

export function ChannelsCard({ channels }: { channels: StatusView['channels'] }) {
  return (
    <article class="card health-card" aria-labelledby="health-channels">
      <h3 id="health-channels">Channels</h3>
      <ul class="rows">
        {channels.map((channel) => (
          <li key={channel.name} data-channel={channel.name}>
            <strong>{channel.name}</strong> <State mark={channelMark(channel.state)}>{channel.state}</State>
            {channel.since ? <span class="muted"> since {relativeTime(channel.since)}</span> : null}
            {channel.attempts > 0 ? <span class="muted"> · {channel.attempts} failed attempts</span> : null}
            {channel.reason ? <p class="reason">{channel.reason}</p> : null}
            {channel.lastDeaf ? (
              <p class="reason" data-deaf>
                Found deaf {channel.deafReconnects ?? 1} {channel.deafReconnects === 1 ? 'time' : 'times'},
                last {relativeTime(channel.lastDeaf.at)}: {channel.lastDeaf.reason}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </article>
  );
}

export function StoreCard({ store }: { store: StatusView['store'] }) {
  return (
    <article class="card health-card" aria-labelledby="health-store" data-store={store.driver}>
      <h3 id="health-store">Store</h3>
      <p>
        <strong>{store.driver}</strong>{' '}
        <State mark={store.reachable ? 'ok' : 'bad'}>{store.reachable ? 'reachable' : 'unreachable'}</State>
      </p>
      <p class="muted location">{store.location}</p>
      {store.error ? <p class="reason">{store.error}</p> : null}
    </article>
  );
}

export function ModelsCard({
  models,
  lastFailover,
}: {
  models: StatusView['models'];
  lastFailover?: StatusView['lastFailover'];
}) {
  return (
    <article class="card health-card" aria-labelledby="health-models">
      <h3 id="health-models">Models</h3>
      <p class="muted">
        The outcome of each model's last call since the gateway started (no test calls are made).
      </p>
      <ul class="rows">
        {models.length === 0 ? <li class="muted">No model is configured.</li> : null}
        {models.map(({ name, description, lastCall, cooldownUntil }) => (
          <li key={name} data-model={name}>
            <strong>{name}</strong>{' '}
            {lastCall ? (
              <State mark={lastCall.ok ? 'ok' : 'bad'}>{lastCall.ok ? 'answered' : 'failed'}</State>
            ) : (
              <State mark="warn">not called yet</State>
            )}
            {lastCall ? (
              <span class="muted">
                {' '}
                {relativeTime(lastCall.at)} · {lastCall.ms} ms
              </span>
            ) : null}
            {cooldownUntil ? (
              <p class="cooldown">
                <State mark="warn">cooling down</State> until{' '}
                <time dateTime={cooldownUntil}>{new Date(cooldownUntil).toLocaleTimeString()}</time> (rate
                limited: skipped by every agent)
              </p>
            ) : null}
            <p class="muted">{description}</p>
            {lastCall?.error ? <p class="reason">{lastCall.error}</p> : null}
          </li>
        ))}
      </ul>
      <h4>Last failover</h4>
      {lastFailover ? (
        <p class="failover">
          <time dateTime={lastFailover.at}>{relativeTime(lastFailover.at)}</time> · agent{' '}
          {lastFailover.agentId}: <strong>{lastFailover.from}</strong> → <strong>{lastFailover.to}</strong>
          <span class="reason"> {lastFailover.why}</span>
        </p>
      ) : (
        <p class="muted">None since the gateway started.</p>
      )}
    </article>
  );
}

export function RestartsCard({ status }: { status: StatusView }) {
  return (
    <article class="card health-card" aria-labelledby="health-restarts">
      <h3 id="health-restarts">Restarts</h3>
      <ul class="rows restarts">
        {status.restarts.map((restart) => (
          <li key={restart.at}>
            <time dateTime={restart.at}>{relativeTime(restart.at)}</time> · {restart.reason}
          </li>
        ))}
      </ul>
      <h4>Config changes</h4>
      {status.configChanges.length === 0 ? <p class="muted">None recorded.</p> : null}
      <ul class="rows changes">
        {status.configChanges.map((change) => (
          <li key={change.number}>
            #{change.number} {change.action} by {change.actor},{' '}
            <time dateTime={change.ts}>{relativeTime(change.ts)}</time>
            {change.changedPaths.length > 0 ? (
              <span class="muted"> · {change.changedPaths.join(', ')}</span>
            ) : null}
            {change.note ? <p class="muted">{change.note}</p> : null}
          </li>
        ))}
      </ul>
    </article>
  );
}
