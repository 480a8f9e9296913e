// The web chat page. Authentication is the HttpOnly cookie set when the page was opened
// with ?token=; replies arrive on the event stream (streamed parts first) and, as a fallback,
// in the answer to the POST.
// biome-ignore lint/suspicious/noRedundantUseStrict: the page inlines this file as a classic <script>, not a module.
'use strict';

const log = document.getElementById('log');
const form = document.getElementById('composer');
const textInput = document.getElementById('text');
const userInput = document.getElementById('user');
const threadInput = document.getElementById('thread');
const connection = document.getElementById('connection');
const shown = new Map();
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

function showReply(id, text, done) {
  let element = shown.get(id);
  if (!element) {
    element = add('agent', '');
    shown.set(id, element);
  }
  element.textContent = text;
  element.classList.toggle('streaming', !done);
  log.scrollTop = log.scrollHeight;
}

function currentThread() {
  return threadInput.value.trim() || undefined;
}

function onEvent(type, data) {
  if ((data.thread || undefined) !== currentThread()) return;
  if (type === 'reply.delta') {
    const element = shown.get(data.id);
    showReply(data.id, (element ? element.textContent : '') + data.delta, false);
  } else if (type === 'reply') {
    showReply(data.id, data.text, true);
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
  const user = userInput.value.trim() || 'local';
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
  const body = { text, user: userInput.value.trim() || 'local' };
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
    for (const reply of answer.replies || []) showReply(reply.id, reply.text, true);
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
});

listen();
