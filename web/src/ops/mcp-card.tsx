import type { McpServerView } from './health-cards.js';
import { State } from './health-cards.js';

/** The MCP servers: each one's state and tool count, and while it is down why, as the gateway retries it. */
export function McpServersCard({ servers }: { servers: McpServerView[] }) {
  return (
    <article class="card health-card" aria-labelledby="health-mcp">
      <h3 id="health-mcp">MCP servers</h3>
      <ul class="rows">
        {servers.map((server) => (
          <li key={server.name} data-mcp-server={server.name}>
            <strong>{server.name}</strong> <span class="muted">({server.transport})</span>{' '}
            <State mark={server.state === 'ready' ? 'ok' : server.state === 'failed' ? 'bad' : 'warn'}>
              {server.state}
            </State>
            <span class="muted"> · {server.tools} tools</span>
            {server.failures > 0 ? <span class="muted"> · {server.failures} failed attempts</span> : null}
            {server.error ? <p class="reason">{server.error}</p> : null}
          </li>
        ))}
      </ul>
    </article>
  );
}
