// pakton web app: the Deadlines tab — the collection's deadlines (expiry,
// automatic renewal, the last day to give notice of non-renewal, option
// windows) by date, each with the clause it was read from (click to open it
// in the contract), those that cannot be computed with why, and the
// calendar file (.ics) to import them into a calendar.
'use strict';

const dl = {
  loaded: '',   // the collection and span the list shown was read for
  loading: null, // AbortController of the list being read
};

function setupDeadlines() {
  $('tab-deadlines').addEventListener('click', () => setTab('deadlines'));
  $('deadlines-within').addEventListener('change', () => loadDeadlines(true));
  $('deadlines-ics').addEventListener('click', downloadICS);
}

// deadlinesQuery is the query of the list shown: its span ahead, if any.
function deadlinesQuery(format) {
  const p = new URLSearchParams();
  const w = $('deadlines-within').value;
  if (w) p.set('within', w);
  if (format) p.set('format', format);
  const q = p.toString();
  return q ? '?' + q : '';
}

// loadDeadlines reads the list (once per collection and span, unless force).
async function loadDeadlines(force) {
  const key = state.collection + '|' + $('deadlines-within').value;
  if (!force && dl.loaded === key) return;
  if (dl.loading) dl.loading.abort();
  const ctl = new AbortController();
  dl.loading = ctl;
  $('deadlines-status').textContent = 'Reading the dates of every contract…';
  $('deadlines-list').replaceChildren();
  $('deadlines-undated').replaceChildren();
  $('deadlines-undated-box').hidden = true;
  try {
    const r = await api('GET', coll() + '/deadlines' + deadlinesQuery(), undefined, ctl.signal);
    dl.loaded = key;
    renderDeadlines(r);
  } catch (err) {
    if (err.name !== 'AbortError') {
      $('deadlines-status').textContent = '';
      showError(err);
    }
  } finally {
    if (dl.loading === ctl) dl.loading = null;
  }
}

// resetDeadlines forgets the list shown (another collection was picked).
function resetDeadlines() {
  dl.loaded = '';
  if (!$('deadlines').hidden) loadDeadlines(true);
}

// dayLabel writes a YYYY-MM-DD day as "4 Dec 2027".
function dayLabel(d) {
  const [y, m, day] = d.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, day)).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}

// daysFrom is how many days lie from a to b (both YYYY-MM-DD).
function daysFrom(a, b) {
  return Math.round((Date.parse(b + 'T00:00:00Z') - Date.parse(a + 'T00:00:00Z')) / 86400000);
}

function renderDeadlines(r) {
  const all = listOf(r, 'deadlines');
  const dated = all.filter((d) => d.date);
  const undated = all.filter((d) => !d.date);
  const w = $('deadlines-within');
  const scope = w.value ? ' in the next ' + w.options[w.selectedIndex].textContent.replace(/^Next /, '') : '';
  $('deadlines-status').textContent = dated.length
    ? dated.length + ' deadline' + (dated.length === 1 ? '' : 's') + scope + ' across ' + r.contracts + ' contract' + (r.contracts === 1 ? '' : 's') + ', as of ' + dayLabel(r.as_of)
    : 'No dated deadlines' + scope + ' (' + r.contracts + ' contracts read).';
  const list = $('deadlines-list');
  for (const d of dated) list.append(deadlineItem(d, r.as_of));
  const box = $('deadlines-undated');
  for (const d of undated) {
    box.append(el('li', {},
      el('span', { className: 'dl-contract' }, contractButton(d)),
      ' — ', el('strong', {}, d.label), ': ', d.why,
      clauseLinks(d)));
  }
  $('deadlines-undated-box').hidden = !undated.length;
  $('deadlines-undated-count').textContent = undated.length ? '(' + undated.length + ')' : '';
}

function deadlineItem(d, asOf) {
  const left = daysFrom(asOf, d.start || d.date);
  let when = d.start ? dayLabel(d.start) + ' – ' + dayLabel(d.date) : dayLabel(d.date);
  let soon = '';
  if (daysFrom(asOf, d.date) < 0) soon = 'past';
  else if (left <= 0) soon = 'open now';
  else if (left <= 90) soon = 'in ' + left + ' day' + (left === 1 ? '' : 's');
  const cls = 'dl-item dl-' + d.kind + (soon === 'past' ? ' dl-past' : left <= 30 && soon !== 'past' ? ' dl-soon' : '');
  return el('li', { className: cls },
    el('div', { className: 'dl-when' }, el('time', { dateTime: d.date }, when), soon && el('span', { className: 'dl-left' }, soon)),
    el('div', { className: 'dl-what' },
      el('p', { className: 'dl-label' }, d.label),
      el('p', { className: 'dl-contract' }, contractButton(d)),
      d.how && el('p', { className: 'dl-how hint' }, d.how),
      clauseLinks(d)));
}

// contractButton names the contract as people name it and opens it.
function contractButton(d) {
  return el('button', { type: 'button', className: 'linkish', title: d.doc_name, onclick: () => openDocument(d.doc_id).catch(showError) }, d.doc_title || d.doc_name);
}

// clauseLinks lists the clauses a deadline was read from: each quote opens
// the contract with the clause highlighted.
function clauseLinks(d) {
  const cl = (d.clauses || []);
  if (!cl.length) return null;
  return el('ul', { className: 'dl-clauses' }, cl.map((c) => el('li', {},
    el('button', { type: 'button', className: 'dl-quote', title: 'Open in the contract',
      onclick: () => showSource({ doc_id: d.doc_id, span: c.span }, c.provision).catch(showError) },
    el('span', { className: 'dl-path' }, c.provision + (c.path ? ' · ' + c.path : '') + (c.pages && c.pages.length ? ' · p. ' + c.pages[0] : '')),
    el('q', {}, c.quote)))));
}

// downloadICS saves the list shown as an iCalendar file.
async function downloadICS() {
  try {
    const res = await fetch(API + coll() + '/deadlines' + deadlinesQuery('ics'), { headers: headers() });
    if (!res.ok) throw await errorOf(res);
    const blob = await res.blob();
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: exportName(res.headers.get('Content-Disposition')) || 'deadlines.ics' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) { showError(err); }
}
