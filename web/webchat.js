// The web chat page. Authentication is the HttpOnly cookie set when the page was opened
// with ?token=; replies arrive on the event stream (streamed parts first) and, as a fallback,
// in the answer to the POST. A reply may carry buttons (an approval's Approve and Deny): a click
// POSTs the button's value to /api/webchat/action and the answer's text replaces the buttons.
// Text is shown as text (never as HTML); ``` fenced blocks show as <pre> blocks.
// biome-ignore lint/suspicious/noRedundantUseStrict: the page inlines this file as a classic <script>, not a module.
'use strict';

const log = document.getElementById('log');
const form = document.getElementById('composer');
const textInput = document.getElementById('text');
const userInput = document.getElementById('user');
const threadInput = document.getElementById('thread');
const connection = document.getElementById('connection');
const shown = new Map();
// Reply id → the answer to its click: its buttons are not shown again (a repeated event, the POST answer).
const decided = new Map();
// Reply id → its text as sent (fences included): stream parts are appended to it.
const texts = new Map();
const SIGN_IN_HINT = 'Open the web chat URL with ?token= that the gateway log shows';
let stream;
let pending = 0;

const params = new URLSearchParams(location.search);
if (params.get('user')) userInput.value = params.get('user');

function add(kind, text, meta) {
  const element = document.createElement('div');
  element.className = `message ${kind}`;
  element.textContent = text;
  if (meta) {
    const label = document.createElement('span');
    label.className = 'meta';
    label.textContent = meta;
    element.prepend(label);
  }
  log.append(element);
  log.scrollTop = log.scrollHeight;
  return element;
}

// A reply's bubble: its text in `.text`, then (for a request) its buttons or the decision.
function bubbleOf(id) {
  let element = shown.get(id);
  if (!element) {
    element = add('agent', '');
    element.dataset.reply = id;
    const text = document.createElement('div');
    text.className = 'text';
    element.append(text);
    shown.set(id, element);
  }
  return element;
}

function textOf(id) {
  return texts.get(id) || '';
}

// Text as text nodes, and each ``` fenced block (an approval's arguments, a config diff) as a <pre>.
function renderText(container, text) {
  const parts = [];
  const fence = /```[\w-]*\n([\s\S]*?)\n?```\n?/g;
  let last = 0;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    // The line break before a block is the block's own (pre-wrap would show an empty line).
    if (match.index > last)
      parts.push(document.createTextNode(text.slice(last, match.index).replace(/\n$/, '')));
    const block = document.createElement('pre');
    block.className = 'code';
    block.textContent = match[1];
    parts.push(block);
    last = fence.lastIndex;
  }
  if (last < text.length) parts.push(document.createTextNode(text.slice(last)));
  container.replaceChildren(...parts);
}

function showReply(id, text, done, actions) {
  const element = bubbleOf(id);
  texts.set(id, text);
  renderText(element.querySelector('.text'), text);
  element.classList.toggle('streaming', !done);
  if (actions && actions.length > 0 && !decided.has(id) && !element.querySelector('.actions')) {
    showActions(element, id, actions);
  }
  if (decided.has(id)) showDecision(id, decided.get(id));
  log.scrollTop = log.scrollHeight;
}

// A file sent to the chat (chat.attach): its comment, then a link that downloads it (the cookie
// authenticates the GET like the rest of the API).
function showFile(file) {
  const element = add('agent', '');
  element.classList.add('file');
  if (file.comment) {
    const text = document.createElement('div');
    text.className = 'text';
    renderText(text, file.comment);
    element.append(text);
  }
  const link = document.createElement('a');
  link.href = file.url;
  link.download = file.name;
  link.textContent = `${file.name} (${sizeOf(file.size)})`;
  element.append(link);
  log.scrollTop = log.scrollHeight;
}

function sizeOf(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

// Buttons under a reply; a click POSTs the button's value, and the answer replaces the buttons.
function showActions(element, id, actions) {
  const group = document.createElement('div');
  group.className = 'actions';
  group.setAttribute('role', 'group');
  const context = { id, user: currentUser(), thread: currentThread() };
  for (const action of actions) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `action ${action.style === 'primary' || action.style === 'danger' ? action.style : 'plain'}`;
    button.textContent = action.label;
    button.addEventListener('click', () => choose(group, context, action.value));
    group.append(button);
  }
  element.append(group);
}

async function choose(group, context, value) {
  const buttons = [...group.querySelectorAll('button')];
  for (const button of buttons) button.disabled = true;
  group.setAttribute('aria-busy', 'true');
  const body = { action: value, user: context.user, reply: context.id };
  if (context.thread) body.thread = context.thread;
  let problem;
  try {
    const response = await fetch('/api/webchat/action', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (response.status === 401) {
      notSignedIn();
      problem = `Not signed in, so the click was not sent. ${SIGN_IN_HINT}.`;
    } else if (!response.ok) problem = answer.message || `HTTP ${response.status}`;
    else if (!answer.text) problem = 'The gateway did not answer the click.';
    // An answer with buttons did not decide (not an approver's click): the buttons stay, it shows under them.
    else if (answer.actions && answer.actions.length > 0) problem = answer.text;
    else showDecision(context.id, answer.text);
  } catch (error) {
    problem = `Could not send the click: ${error.message}`;
  }
  group.setAttribute('aria-busy', 'false');
  if (problem === undefined) return;
  // The buttons stay, usable again, with what went wrong under them.
  for (const button of buttons) button.disabled = false;
  let note = group.querySelector('.note');
  if (!note) {
    note = document.createElement('div');
    note.className = 'note';
    note.setAttribute('role', 'alert');
    group.append(note);
  }
  note.textContent = problem;
}

// The answer to a click (from its POST, or from the stream when another page clicked) replaces the buttons.
function showDecision(id, text) {
  decided.set(id, text);
  const element = shown.get(id);
  if (!element) return;
  element.querySelector('.actions')?.remove();
  let decision = element.querySelector('.decision');
  if (!decision) {
    decision = document.createElement('div');
    decision.className = 'decision';
    element.append(decision);
  }
  decision.textContent = text;
}

function currentUser() {
  return userInput.value.trim() || 'local';
}

function currentThread() {
  return threadInput.value.trim() || undefined;
}

function onEvent(type, data) {
  if ((data.thread || undefined) !== currentThread()) return;
  if (type === 'reply.delta') {
    showReply(data.id, textOf(data.id) + data.delta, false);
  } else if (type === 'reply') {
    showReply(data.id, data.text, true, data.actions);
  } else if (type === 'reply.decided') {
    showDecision(data.id, data.text);
  } else if (type === 'file') {
    showFile(data);
  }
}

function setConnection(text, offline) {
  connection.textContent = text;
  connection.classList.toggle('offline', offline);
}

function notSignedIn() {
  setConnection('not signed in: open the URL with ?token= from the gateway log', true);
}

// The log is busy while messages wait for their answers (screen readers, and tests, can tell).
function setPending(change) {
  pending += change;
  log.setAttribute('aria-busy', String(pending > 0));
}

async function listen() {
  const controller = new AbortController();
  stream = controller;
  const user = currentUser();
  if (!userInput.checkValidity()) {
    // The server would refuse the name (400) and the page would retry forever.
    setConnection('invalid user name: letters, digits, _ . - (up to 64)', true);
    return;
  }
  setConnection('connecting…', false);
  try {
    const response = await fetch(`/api/webchat/events?user=${encodeURIComponent(user)}`, {
      signal: controller.signal,
    });
    if (response.status === 401) {
      notSignedIn();
      return;
    }
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
    setConnection(`connected as webchat:${user}`, false);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let boundary = buffer.indexOf('\n\n');
      while (boundary >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf('\n\n');
        let type = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) onEvent(type, JSON.parse(data));
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    console.warn('event stream failed', error);
  }
  if (stream !== controller) return;
  setConnection('disconnected; reconnecting…', true);
  setTimeout(() => {
    if (stream === controller) listen();
  }, 2000);
}

function reconnect() {
  if (stream) stream.abort();
  listen();
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = textInput.value.trim();
  if (!text) return;
  textInput.value = '';
  add('user', text);
  const body = { text, user: currentUser() };
  const thread = currentThread();
  if (thread) body.thread = thread;
  setPending(1);
  try {
    const response = await fetch('/api/webchat/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (response.status === 401) {
      notSignedIn();
      add('error', `Not signed in, so the message was not sent. ${SIGN_IN_HINT}.`);
      return;
    }
    if (!response.ok) {
      add('error', answer.message || `HTTP ${response.status}`);
      return;
    }
    // The thread view may have changed while the turn ran: its replies belong to the old one.
    if (thread !== currentThread()) return;
    for (const reply of answer.replies || []) showReply(reply.id, reply.text, true, reply.actions);
  } catch (error) {
    add('error', `Could not send: ${error.message}`);
  } finally {
    setPending(-1);
  }
});

textInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    form.requestSubmit();
  }
});
userInput.addEventListener('change', reconnect);
threadInput.addEventListener('change', () => {
  log.replaceChildren();
  shown.clear();
  decided.clear();
  texts.clear();
});

listen();
