// The Tools page: the WebUI entries of the loaded toolpacks, grouped by toolpack. A panel shows its
// handler's output, fetched when the page opens and again on Refresh (with the panel's inputs, if it
// has any); an action is a form built from its inputSchema that runs the handler and shows the answer.
// Authentication is the HttpOnly cookie set when / or /tools was opened with ?token=.
// biome-ignore lint/suspicious/noRedundantUseStrict: the page inlines this file as a classic <script>, not a module.
'use strict';

/** Fields that name an agent: a dropdown of the roster instead of free text. */
const ROSTER_FIELDS = new Set(['sender', 'recipient', 'agentA', 'agentB', 'targetAgent']);
const NOT_SIGNED_IN = 'not signed in: open the URL with ?token= from the gateway log';

const project = document.querySelector('meta[name="switchboard-project"]').content;
const api = `/api/projects/${encodeURIComponent(project)}`;
const main = document.getElementById('toolpacks');
const status = document.getElementById('status');

function setStatus(text, offline) {
  status.textContent = text;
  status.classList.toggle('offline', offline);
}

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

/** GETs or POSTs JSON; rejects with the API's message (or "not signed in") when the answer is not 2xx. */
async function call(path, body) {
  const init =
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const response = await fetch(api + path, init);
  const answer = await response.json().catch(() => ({}));
  if (response.status === 401) {
    setStatus(NOT_SIGNED_IN, true);
    throw new Error('Not signed in. Open the URL with ?token= that the gateway log shows.');
  }
  if (!response.ok) throw new Error(answer.message || `HTTP ${response.status}`);
  return answer;
}

/** The schema's type, ignoring "null" in a type list. */
function typeOf(schema) {
  return Array.isArray(schema.type) ? schema.type.find((type) => type !== 'null') : schema.type;
}

/** A select whose option values are indexes into `values`, so enum values keep their JSON types. */
function choice(values, labels, required) {
  const select = element('select');
  const blank = element('option', '', required ? 'Choose…' : '(none)');
  blank.value = '';
  select.append(blank);
  for (const [index, label] of labels.entries()) {
    const option = element('option', '', label);
    option.value = String(index);
    select.append(option);
  }
  const read = () => (select.value === '' ? undefined : values[Number(select.value)]);
  const write = (value) => {
    const index = values.findIndex((candidate) => JSON.stringify(candidate) === JSON.stringify(value));
    if (index >= 0) select.value = String(index);
  };
  return { control: select, read, write };
}

function writeText(input) {
  return (value) => {
    input.value = String(value);
  };
}

/** Whether a roster field also takes `user`: its default is `user`, or its description names `user`. */
function takesUser(schema) {
  return (
    schema.default === 'user' ||
    (typeof schema.description === 'string' && schema.description.includes('`user`'))
  );
}

/** One input for one property: a control, how to read its JSON value (undefined: leave it out). */
function control(name, schema, required, roster) {
  const type = typeOf(schema);
  if (Array.isArray(schema.enum)) {
    return choice(schema.enum, schema.enum.map(String), required);
  }
  if (ROSTER_FIELDS.has(name) && (type === undefined || type === 'string')) {
    const labels = roster.map((agent) =>
      agent.displayName && agent.displayName !== agent.id ? `${agent.displayName} (${agent.id})` : agent.id,
    );
    const ids = roster.map((agent) => agent.id);
    // The human is a participant too where the field says so (Suzumio's `user`).
    if (takesUser(schema) && !ids.includes('user')) {
      ids.unshift('user');
      labels.unshift('user');
    }
    return choice(ids, labels, required);
  }
  if (type === 'boolean') {
    const input = element('input');
    input.type = 'checkbox';
    const write = (value) => {
      input.checked = value === true;
    };
    return { control: input, read: () => input.checked, write };
  }
  if (type === 'number' || type === 'integer') {
    const input = element('input');
    input.type = 'number';
    input.step = type === 'integer' ? '1' : 'any';
    if (typeof schema.minimum === 'number') input.min = String(schema.minimum);
    if (typeof schema.maximum === 'number') input.max = String(schema.maximum);
    const read = () => (input.value === '' ? undefined : Number(input.value));
    return { control: input, read, write: writeText(input) };
  }
  if (type === 'string') {
    const input = element('input');
    input.type = 'text';
    if (typeof schema.maxLength === 'number') input.maxLength = schema.maxLength;
    const read = () => (input.value === '' ? undefined : input.value);
    return { control: input, read, write: writeText(input) };
  }
  // Objects, arrays and untyped values: JSON text.
  const area = element('textarea');
  area.rows = 2;
  area.placeholder = 'JSON';
  const read = () => (area.value.trim() === '' ? undefined : JSON.parse(area.value));
  const write = (value) => {
    area.value = JSON.stringify(value);
  };
  return { control: area, read, write };
}

/** The form's fields from an object schema, and a function that reads them into the input object. */
function fields(form, schema, roster) {
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const readers = [];
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const isRequired = required.has(name);
    const made = control(name, property ?? {}, isRequired, roster);
    made.control.name = name;
    // A required checkbox would have to be ticked; a boolean is always sent, so it needs no mark in HTML.
    if (isRequired && made.control.type !== 'checkbox') made.control.required = true;
    if (property?.default !== undefined) made.write(property.default);
    const label = element('label', made.control.type === 'checkbox' ? 'field checkbox' : 'field');
    const caption = element('span', '', property?.title || name);
    if (isRequired) {
      const mark = element('abbr', 'required', '*');
      mark.title = 'required';
      caption.append(mark);
    }
    label.append(caption, made.control);
    if (property?.description) label.append(element('span', 'hint', property.description));
    form.append(label);
    readers.push([name, made.read]);
  }
  return () => {
    const input = {};
    for (const [name, read] of readers) {
      const value = read();
      if (value !== undefined) input[name] = value;
    }
    return input;
  };
}

/** A handler's `metadata.metrics` (`[{ label, value, description? }]`, Suzumio's shape) as cards. */
function metricCards(metrics) {
  const list = element('dl', 'metrics');
  for (const metric of metrics) {
    if (typeof metric !== 'object' || metric === null) continue;
    const card = element('div', 'metric');
    card.append(element('dt', '', String(metric.label ?? '')), element('dd', '', String(metric.value ?? '')));
    if (metric.description) card.append(element('dd', 'hint', String(metric.description)));
    list.append(card);
  }
  return list;
}

function showAnswer(result, answer) {
  const parts = [];
  if (answer.title) parts.push(element('p', 'title', answer.title));
  if (Array.isArray(answer.metadata?.metrics)) parts.push(metricCards(answer.metadata.metrics));
  const output = typeof answer.output === 'string' ? answer.output : JSON.stringify(answer.output, null, 2);
  parts.push(element('pre', 'output', output ?? ''));
  if (answer.metadata !== undefined) {
    const details = element('details');
    details.append(
      element('summary', '', 'Metadata'),
      element('pre', '', JSON.stringify(answer.metadata, null, 2)),
    );
    parts.push(details);
  }
  result.replaceChildren(...parts);
}

/** One entry's card: heading, form (fields, then the button) and the result area. */
function entryCard(entry, roster) {
  const card = element('article', `entry ${entry.kind}`);
  card.dataset.toolpack = entry.toolpack;
  card.dataset.entry = entry.id;
  const heading = element('h3', '', entry.title);
  heading.append(element('span', 'kind', entry.kind));
  card.append(heading);
  if (entry.description) card.append(element('p', 'description', entry.description));
  const form = element('form');
  const readInput = fields(form, entry.inputSchema, roster);
  const fallback = entry.kind === 'panel' ? 'Refresh' : 'Run';
  form.append(element('button', '', entry.submitLabel || fallback));
  const result = element('div', 'result');
  result.setAttribute('aria-live', 'polite');
  result.setAttribute('aria-busy', 'false');
  card.append(form, result);

  // Only the latest run's answer is shown, whatever order the answers arrive in.
  let latest = 0;
  async function run() {
    const mine = ++latest;
    result.setAttribute('aria-busy', 'true');
    try {
      const path = `/tool-ui/${encodeURIComponent(entry.toolpack)}/${encodeURIComponent(entry.id)}`;
      const answer = await call(path, readInput());
      if (mine === latest) showAnswer(result, answer);
    } catch (error) {
      if (mine === latest) result.replaceChildren(element('p', 'error', error.message));
    } finally {
      if (mine === latest) result.setAttribute('aria-busy', 'false');
    }
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run();
  });
  // A panel shows its output at once, unless it needs input that has no default yet.
  if (entry.kind === 'panel' && form.checkValidity()) run();
  return card;
}

/** Toolpacks (or entries) the gateway skipped, with the file and the rule to fix. */
function showSkipped(problems) {
  if (!problems?.length) return;
  const section = element('section', 'skipped');
  section.append(element('h2', '', 'Skipped (fix and restart)'));
  const list = element('ul', 'problems');
  for (const problem of problems) {
    list.append(
      element(
        'li',
        '',
        `${problem.file}${problem.pointer ? ` ${problem.pointer}` : ''}: ${problem.message} [${problem.rule}]`,
      ),
    );
  }
  section.append(list);
  main.append(section);
}

/** Scheduler hooks that keep failing: the error, since when, and when the gateway tries again. */
function showFailingHooks(hooks) {
  const failing = (hooks ?? []).filter((hook) => hook.status === 'failing');
  if (failing.length === 0) return;
  const section = element('section', 'failing-hooks');
  section.append(element('h2', '', 'Scheduler hooks failing (retried with a growing delay)'));
  const list = element('ul', 'problems');
  for (const hook of failing) {
    const retry = typeof hook.backoffMs === 'number' ? `; next try in ${hook.backoffMs / 1000} s` : '';
    list.append(
      element(
        'li',
        '',
        `${hook.toolpackId}: ${hook.error} (${hook.failures} failures in a row since ${hook.since}${retry})`,
      ),
    );
  }
  section.append(list);
  main.append(section);
}

/** Toolpacks whose code reaches for a Suzumio-internal API Switchboard does not provide (`store.db`). */
function showNotProvided(toolpacks) {
  const lacking = (toolpacks ?? []).filter((toolpack) => (toolpack.notProvided ?? []).length > 0);
  if (lacking.length === 0) return;
  const section = element('section', 'not-provided');
  section.append(element('h2', '', 'Suzumio APIs not provided (undefined for these controllers)'));
  const list = element('ul', 'problems');
  for (const toolpack of lacking)
    list.append(element('li', '', `${toolpack.id}: ${toolpack.notProvided.join(', ')}`));
  section.append(list);
  main.append(section);
}

/** One row per registered tool: where it comes from, the agents allowed it, its calls since the start. */
function toolStatusRow(tool) {
  const row = element('tr');
  row.dataset.tool = tool.tool;
  const last = tool.lastStatus
    ? `${tool.lastStatus} by ${tool.lastAgentId} at ${tool.lastAt}${tool.lastError ? `: ${tool.lastError}` : ''}`
    : 'never called';
  const cells = [
    tool.tool,
    tool.source,
    tool.enabledForAgents.length > 0 ? tool.enabledForAgents.join(', ') : 'no agent',
    String(tool.callCount),
    String(tool.runningCount),
    String(tool.failedCount),
    last,
  ];
  for (const [index, text] of cells.entries()) {
    const cell = element(index === 0 ? 'th' : 'td', '', text);
    if (index === 0) cell.scope = 'row';
    row.append(cell);
  }
  if (tool.failedCount > 0) row.classList.add('failing');
  if (tool.runningCount > 0) row.classList.add('running');
  return row;
}

/** Per-tool status (GET …/tool-status), with its own Refresh. */
async function showToolStatus(section) {
  const { tools } = await call('/tool-status');
  const table = element('table', 'tool-status');
  const head = element('tr');
  for (const title of ['Tool', 'From', 'Agents', 'Calls', 'Running', 'Failed', 'Last call']) {
    const cell = element('th', '', title);
    cell.scope = 'col';
    head.append(cell);
  }
  const body = element('tbody');
  body.append(...tools.map(toolStatusRow));
  const header = element('thead');
  header.append(head);
  table.append(header, body);
  const refresh = element('button', '', 'Refresh');
  refresh.type = 'button';
  refresh.addEventListener('click', () => showToolStatus(section).catch(() => undefined));
  const heading = element('h2', '', 'Tool status');
  section.replaceChildren(
    heading,
    tools.length > 0 ? table : element('p', 'empty', 'No tools registered.'),
    refresh,
  );
}

/** What GET /api/toolpacks reports beyond the entries: skipped toolpacks, failing hooks, APIs not provided. */
async function showToolpackReport() {
  const response = await fetch('/api/toolpacks').catch(() => undefined);
  if (!response?.ok) return;
  const report = await response.json();
  showSkipped(report.problems);
  showFailingHooks(report.schedulerHooks);
  showNotProvided(report.toolpacks);
}

async function load() {
  let entries;
  let roster;
  try {
    [{ entries }, { agents: roster }] = await Promise.all([call('/tool-ui'), call('/roster')]);
  } catch (error) {
    if (status.textContent !== NOT_SIGNED_IN) setStatus(`could not load the tools: ${error.message}`, true);
    main.setAttribute('aria-busy', 'false');
    return;
  }
  const groups = new Map();
  for (const entry of entries) {
    if (!groups.has(entry.toolpack)) groups.set(entry.toolpack, []);
    groups.get(entry.toolpack).push(entry);
  }
  for (const [toolpack, members] of groups) {
    const section = element('section', 'toolpack');
    section.dataset.toolpack = toolpack;
    section.append(element('h2', '', toolpack));
    for (const entry of members) section.append(entryCard(entry, roster));
    main.append(section);
  }
  if (groups.size === 0) main.append(element('p', 'empty', 'No loaded toolpack declares a WebUI entry.'));
  const statusSection = element('section', 'tool-status');
  main.append(statusSection);
  await showToolStatus(statusSection).catch((error) =>
    statusSection.replaceChildren(element('p', 'error', `tool status: ${error.message}`)),
  );
  await showToolpackReport();
  const count = entries.length === 1 ? '1 entry' : `${entries.length} entries`;
  setStatus(`project ${project}: ${count}`, false);
  main.setAttribute('aria-busy', 'false');
}

load();
