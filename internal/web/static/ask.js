// pakton web app: ask a question; the agents' progress streamed over SSE.
'use strict';

// sse reads a text/event-stream response and yields {event, data}.
async function* sse(res) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value.replace(/\r\n?/g, '\n');
    let cut;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let v = colon < 0 ? '' : line.slice(colon + 1);
        if (v.startsWith(' ')) v = v.slice(1);
        if (field === 'event') event = v;
        else if (field === 'data') data.push(v);
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}

function parseData(s) {
  try { return JSON.parse(s); } catch (_) { return s; }
}

function logLine(kind, text) {
  const log = $('progress');
  log.append(el('li', { className: 'log-' + kind }, el('span', { className: 'log-kind' }, kind), ' ', text));
  log.scrollTop = log.scrollHeight;
}

// progressText turns a progress event into its kind (the agent speaking, a
// question asked, a step) and its text.
function progressText(d) {
  const text = typeof d === 'string' ? d : d.message || d.text || JSON.stringify(d);
  let m = /^(Archivist|Researcher|Interrogator|Writer):\s*([\s\S]*)$/.exec(text);
  if (m) return [m[1].toLowerCase(), m[2]];
  m = /^question (\d+\/\d+):\s*([\s\S]*)$/.exec(text);
  if (m) return ['question ' + m[1], m[2]];
  return ['step', text];
}

async function ask(ev) {
  if (ev) ev.preventDefault();
  const question = $('ask-question').value.trim();
  if (!question) return;
  if (state.asking) state.asking.abort();
  const ctl = new AbortController();
  state.asking = ctl;
  const body = { question, ask_back: true };
  if ($('ask-scope').checked && state.doc) body.docs = [state.doc.id];
  if ($('ask-evidence').checked) body.evidence = true;
  $('activity').hidden = false;
  reveal($('activity'));
  $('progress').replaceChildren();
  $('report').hidden = true;
  document.querySelector('main.layout').classList.remove('reporting');
  $('report').replaceChildren();
  delete $('report').dataset.reportId;
  const btn = $('ask-button');
  btn.disabled = true;
  btn.textContent = 'Asking…';
  logLine('asked', question);
  try {
    const res = await fetch(API + (await collReady()) + '/ask', {
      method: 'POST', signal: ctl.signal,
      headers: headers({ 'Content-Type': 'application/json', Accept: 'text/event-stream' }),
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await errorOf(res);
    let got = false;
    if (!(res.headers.get('Content-Type') || '').includes('text/event-stream')) {
      const r = await res.json();
      renderReport(r.report || r);
      got = true;
    } else {
      for await (const { event, data } of sse(res)) {
        const d = parseData(data);
        if (event === 'progress' || event === 'message') {
          const [kind, text] = progressText(d);
          logLine(kind, text);
        } else if (event === 'started') {
          state.askId = d.ask_id;
        } else if (event === 'question') {
          askedBack(d);
        } else if (event === 'answered') {
          logLine('answered', d.answer ? 'answer sent' : 'no answer: continuing with every candidate');
          for (const b of document.querySelectorAll('.ask-back button, .ask-back input')) b.disabled = true;
        } else if (event === 'source') {
          logLine('source', '[' + d.n + '] ' + (d.doc_name || d.doc_id || d.tool || '') + (d.path ? ' — ' + d.path : ''));
        } else if (event === 'report') {
          renderReport(d.report || d);
          if (d.id) $('report').dataset.reportId = d.id;
          got = true;
        } else if (event === 'error') {
          const msg = typeof d === 'string' ? d : d.message || d.error || JSON.stringify(d);
          logLine('error', msg);
          showError(new Error(msg));
        }
      }
    }
    logLine(got ? 'done' : 'error', got ? 'report ready' : 'the stream ended without a report');
    showError(null);
  } catch (err) {
    if (err.name !== 'AbortError') {
      logLine('error', err.message);
      showError(err);
    }
  } finally {
    if (state.asking === ctl) state.asking = null;
    btn.disabled = false;
    btn.textContent = 'Ask';
  }
}

// askedBack shows a question the ask pauses on (which contract a name
// means, or the Archivist's clarifying question) in the conversation: a
// chip per choice, or a line to answer in; the answer resumes the ask.
function askedBack(q) {
  const log = $('progress');
  const send = async (answer) => {
    for (const b of item.querySelectorAll('button, input')) b.disabled = true;
    try {
      await api('POST', coll() + '/asks/' + encodeURIComponent(q.ask_id) + '/answer', { answer });
    } catch (err) { showError(err); }
  };
  const item = el('li', { className: 'log-question ask-back' },
    el('span', { className: 'log-kind' }, 'question'), ' ', q.question);
  if ((q.choices || []).length) {
    const chip = (c) => el('button', { type: 'button', className: 'chip chip-choice', onclick: () => send(c.id) }, c.label);
    const cs = q.choices;
    if (cs.length > 13) {
      // A name that fits a hundred contracts of a large collection: the
      // first ten, a chip that shows the others, and the last choice
      // ("all of them").
      const more = el('button', { type: 'button', className: 'chip chip-more',
        onclick: (ev) => ev.target.replaceWith(...cs.slice(10, -1).map(chip)) }, '+' + (cs.length - 11) + ' more');
      item.append(el('div', { className: 'chips' }, cs.slice(0, 10).map(chip), more, chip(cs[cs.length - 1])));
    } else {
      item.append(el('div', { className: 'chips' }, cs.map(chip)));
    }
  } else {
    const input = el('input', { type: 'text', 'aria-label': 'Your answer', placeholder: 'Your answer (empty: skip)' });
    const form = el('form', { className: 'ask-back-form', onsubmit: (e) => { e.preventDefault(); send(input.value.trim()); } },
      input, el('button', { type: 'submit' }, 'Answer'));
    item.append(form);
  }
  log.append(item);
  log.scrollTop = log.scrollHeight;
  const first = item.querySelector('button, input');
  if (first) first.focus();
}
