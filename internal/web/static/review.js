// pakton web app: the Review tab — run a playbook over the collection, watch
// its progress, and check the table cell by cell: contracts × provisions,
// filters, a cell's extracts highlighted in the document view, and the
// reviewer's accept / reject / correct decisions (kept by the server and
// included in every export).
'use strict';

const rv = {
  list: [],        // the collection's reviews, newest first
  current: null,   // {review, table, decisions}
  cell: null,      // {row, col} of the open cell
  watching: null,  // AbortController of the progress stream
  watched: null,   // the review whose progress is shown
  playbooks: null, // the server's built-in playbooks
};

function setupReview() {
  $('tab-ask').addEventListener('click', () => setTab('ask'));
  $('tab-review').addEventListener('click', () => setTab('review'));
  $('review-form').addEventListener('submit', startReview);
  $('review-playbook').addEventListener('change', () => {
    $('review-upload').hidden = $('review-playbook').value !== 'upload';
  });
  $('review-pick').addEventListener('change', (e) => e.target.value && openReview(e.target.value));
  for (const id of ['review-filter-name', 'review-filter-prov', 'review-filter-state']) {
    $(id).addEventListener('input', renderGrid);
  }
  for (const b of document.querySelectorAll('[data-export]')) b.addEventListener('click', () => exportReview(b.dataset.export));
  $('decide-accept').addEventListener('click', () => decide('accepted'));
  $('decide-reject').addEventListener('click', () => decide('rejected'));
  $('decide-correct').addEventListener('click', () => {
    $('correct-form').hidden = false;
    $('correct-text').focus();
  });
  $('correct-form').addEventListener('submit', (e) => { e.preventDefault(); decide('corrected'); });
  $('decide-clear').addEventListener('click', () => decide(null));
  $('review-cancel').addEventListener('click', cancelReview);
  $('review-resume').addEventListener('click', resumeReview);
}

// cancelReview stops the review being watched; the contracts it finished
// are kept, and Resume finishes it later.
async function cancelReview() {
  const r = rv.watched;
  if (!r) return;
  try {
    await api('POST', '/jobs/' + encodeURIComponent(r.job) + '/cancel');
  } catch (err) { showError(err); }
}

// resumeReview runs a stopped review again without redoing its finished
// contracts.
async function resumeReview() {
  const id = $('review-resume').dataset.review;
  if (!id) return;
  $('review-resume').hidden = true;
  try {
    const r = await api('POST', coll() + '/reviews/' + encodeURIComponent(id) + '/resume');
    await watchReview(r.review);
  } catch (err) { showError(err); }
}

// setTab switches between asking and reviewing; the document view stays.
function setTab(name) {
  const reviewing = name === 'review';
  $('tab-ask').setAttribute('aria-selected', String(!reviewing));
  $('tab-review').setAttribute('aria-selected', String(reviewing));
  document.querySelector('main.layout').classList.toggle('reviewing', reviewing);
  for (const id of ['ask-form', 'search-form']) $(id).hidden = reviewing;
  if (reviewing) {
    for (const id of ['activity', 'results', 'report']) {
      const e = $(id);
      e.dataset.wasHidden = e.hidden ? '1' : '';
      e.hidden = true;
    }
  } else {
    for (const id of ['activity', 'results', 'report']) {
      const e = $(id);
      if (e.dataset.wasHidden !== undefined) e.hidden = e.dataset.wasHidden === '1';
    }
  }
  $('review').hidden = !reviewing;
  if (reviewing) loadReviews();
}

// loadReviews lists the collection's reviews and opens the newest.
async function loadReviews() {
  try {
    if (!rv.playbooks) {
      const r = await api('GET', '/playbooks');
      rv.playbooks = listOf(r, 'playbooks');
      const pb = rv.playbooks[0];
      if (pb) $('review-playbook').options[0].textContent = 'Built-in: ' + pb.name + ' (' + pb.provisions.length + ' provisions)';
    }
    await loadReviewList();
    if (rv.current && rv.current.review.collection === state.collection) return;
    rv.current = null;
    $('review-results').hidden = true;
    if (rv.list.length) await openReview(rv.list[0].id);
  } catch (err) { showError(err); }
}

// resetReview forgets the review shown (another collection was picked).
function resetReview() {
  if (rv.watching) rv.watching.abort();
  rv.current = null;
  rv.cell = null;
  rv.list = [];
  $('review-results').hidden = true;
  $('review-status').textContent = '';
  if (!$('review').hidden) loadReviews();
}

async function startReview(ev) {
  ev.preventDefault();
  const body = {};
  const provs = $('review-provisions').value.split(',').map((s) => s.trim()).filter(Boolean);
  if (provs.length) body.provisions = provs;
  if ($('review-title').value.trim()) body.title = $('review-title').value.trim();
  if ($('review-offline').checked) body.offline = true;
  if ($('review-playbook').value === 'upload') {
    const f = $('review-file').files[0];
    if (!f) { showError(new Error('Choose a playbook file (YAML) to upload.')); return; }
    body.playbook_yaml = await f.text();
  } else {
    body.playbook = 'builtin';
  }
  showError(null);
  $('review-start').disabled = true;
  try {
    const r = await api('POST', coll() + '/reviews', body);
    rv.current = null;
    await watchReview(r.review);
  } catch (err) {
    showError(err);
  } finally {
    $('review-start').disabled = false;
  }
}

// watchReview follows a running review's progress over SSE, then opens it.
async function watchReview(review) {
  if (rv.watching) rv.watching.abort();
  const ctl = new AbortController();
  rv.watching = ctl;
  rv.watched = review;
  $('review-resume').hidden = true;
  const bar = $('review-bar');
  $('review-progress').hidden = false;
  $('review-results').hidden = true;
  $('review-status').textContent = 'Review ' + (review.title || review.playbook) + ': starting…';
  try {
    const res = await fetch(API + coll() + '/reviews/' + review.id + '/events', { headers: headers(), signal: ctl.signal });
    if (!res.ok) throw await errorOf(res);
    let shown = 0;
    for await (const { event, data } of sse(res)) {
      const d = parseData(data);
      if (event === 'progress') {
        if (d.done > 0 && Date.now() - shown > 2000) {
          shown = Date.now();
          showPartial(review.id);
        }
        bar.max = Math.max(1, d.total || 1);
        bar.value = d.done || 0;
        $('review-status').textContent = 'Reviewed ' + (d.done || 0) + ' of ' + (d.total || '?') + ' contracts' +
          (d.current ? ' — ' + d.current : '');
      } else if (event === 'done') {
        $('review-progress').hidden = true;
        await openReview(review.id);
        loadReviewList().catch(showError);
        return;
      } else if (event === 'error') {
        $('review-progress').hidden = true;
        await openReview(review.id);
        loadReviewList().catch(showError);
        return;
      }
    }
  } catch (err) {
    showError(err);
  } finally {
    if (rv.watching === ctl) rv.watching = null;
  }
}

// loadReviewList fills the picker of the collection's reviews.
async function loadReviewList() {
  const r = await api('GET', coll() + '/reviews');
  rv.list = listOf(r, 'reviews');
  const pick = $('review-pick');
  pick.replaceChildren(el('option', { value: '' }, rv.list.length ? 'Earlier reviews…' : 'No reviews yet'),
    ...rv.list.map((x) => el('option', { value: x.id },
      (x.title || x.playbook) + ' — ' + new Date(x.created).toLocaleString() + ' (' + x.state + ')')));
  pick.disabled = !rv.list.length;
}

// openReview shows a review: its grid when done, its progress while it runs.
async function openReview(id) {
  try {
    const r = await api('GET', coll() + '/reviews/' + encodeURIComponent(id) + '?partial=1');
    if (!r.table) {
      if (r.review.state === 'queued' || r.review.state === 'running') return watchReview(r.review);
      if (r.partial && r.partial.rows.length) showTable(r.review, r.partial, [], true);
      else $('review-results').hidden = true;
      const p = r.review.progress || {};
      $('review-status').textContent = 'Review ' + (r.review.title || r.review.playbook) + ' ' + r.review.state +
        (r.review.error && r.review.error !== r.review.state ? ': ' + r.review.error : '') +
        (p.total ? ' after ' + p.done + ' of ' + p.total + ' contracts' : '') + '.';
      $('review-resume').dataset.review = r.review.id;
      $('review-resume').hidden = false;
      return;
    }
    $('review-resume').hidden = true;
    showTable(r.review, r.table, r.decisions || [], false);
    const s = r.review.stats || {};
    $('review-status').textContent = (r.review.title || r.review.playbook) + ': ' + r.table.rows.length + ' contracts × ' +
      r.table.provisions.length + ' provisions, ' + (s.found || 0) + ' of ' + (s.cells || 0) + ' cells found' +
      (s.failed ? ', ' + s.failed + ' contract(s) could not be reviewed' : '') + '.';
  } catch (err) { showError(err); }
}

// showPartial shows the rows a running review has finished so far.
async function showPartial(id) {
  try {
    const r = await api('GET', coll() + '/reviews/' + encodeURIComponent(id) + '?partial=1');
    if (r.partial && rv.watched && rv.watched.id === id) showTable(r.review, r.partial, [], true);
  } catch (_) { /* the finished table comes at the end anyway */ }
}

// showTable puts a table in the grid; a partial one (a review still
// running, or stopped) takes no decisions.
function showTable(review, table, decisions, partial) {
  const same = rv.current && rv.current.review.id === review.id;
  rv.current = { review, table, decisions, partial };
  if (!same) {
    rv.cell = null;
    $('review-cell').hidden = true;
    $('review').classList.remove('has-cell');
  }
  const prov = $('review-filter-prov');
  const keep = prov.value;
  prov.replaceChildren(el('option', { value: '' }, 'All provisions'),
    ...table.provisions.map((p, i) => el('option', { value: String(i) }, p)));
  prov.value = keep;
  $('review-results').hidden = false;
  for (const b of document.querySelectorAll('[data-export]')) b.disabled = partial;
  renderGrid();
}

function decisionOf(docID, provision) {
  return rv.current.decisions.find((d) => d.doc_id === docID && d.provision === provision) || null;
}

// cellClass colours a cell by its answer and confidence.
function cellClass(c) {
  if (!c) return 'none';
  if (!c.found) return 'nf';
  return c.confidence >= 0.8 ? 'hi' : c.confidence >= 0.5 ? 'mid' : 'lo';
}

function cellShows(c, d, want) {
  switch (want) {
    case 'found': return !!c && c.found;
    case 'nf': return !!c && !c.found;
    case 'low': return !!c && c.confidence >= 0.2 && c.confidence < 0.6;
    case 'open': return !!c && !d;
    case 'decided': return !!d;
    default: return true;
  }
}

const verdictMark = { accepted: '✓ accepted', rejected: '✗ rejected', corrected: '✎ corrected' };

// renderGrid draws the table with the filters applied.
function renderGrid() {
  const cur = rv.current;
  if (!cur) return;
  const t = cur.table;
  const words = $('review-filter-name').value.toLowerCase().split(/\s+/).filter(Boolean);
  const col = $('review-filter-prov').value;
  const want = $('review-filter-state').value;
  const cols = col === '' ? t.provisions.map((_, i) => i) : [Number(col)];
  const head = el('tr', null, el('th', { scope: 'col' }, 'Contract'),
    cols.map((j) => el('th', { scope: 'col' }, t.provisions[j])));
  const rows = [];
  t.rows.forEach((row, i) => {
    const name = (row.doc_name || '').toLowerCase();
    if (words.some((w) => !name.includes(w))) return;
    const cells = cols.map((j) => {
      const p = t.provisions[j];
      const c = (row.cells || []).find((x) => x.provision === p);
      return { j, p, c, d: c ? decisionOf(row.doc_id, p) : null };
    });
    if (want && !cells.some((x) => cellShows(x.c, x.d, want))) return;
    rows.push(el('tr', null,
      el('th', { scope: 'row' }, row.doc_name, row.error ? el('div', { className: 'err' }, row.error) : null),
      cells.map(({ j, p, c, d }) => gridCell(i, j, p, c, d))));
  });
  $('review-grid').replaceChildren(el('thead', null, head), el('tbody', null, rows));
  $('review-shown').textContent = rows.length + ' of ' + t.rows.length + ' contracts shown' +
    (cur.partial ? ' (finished so far; decisions and exports when the review is done)' : '');
}

function gridCell(i, j, p, c, d) {
  if (!c) return el('td', { className: 'none' });
  const corrected = d && d.verdict === 'corrected';
  const found = corrected && d.text ? true : c.found;
  let text = 'Not found';
  if (corrected && d.text) text = d.text;
  else if (c.found) text = (c.extracts || []).map((e) => e.text).join(' … ');
  const value = corrected && d.value ? d.value : c.value;
  const open = rv.cell && rv.cell.row === i && rv.cell.col === j;
  return el('td', { className: cellClass(found ? c : Object.assign({}, c, { found: false })) + (open ? ' open' : '') },
    el('button', {
      type: 'button', className: 'cell', 'data-row': i, 'data-col': j,
      'aria-label': p + ' in ' + rv.current.table.rows[i].doc_name + ': ' + (found ? 'found' : 'not found'),
      onclick: () => openCell(i, j),
    },
    found && value ? el('b', { className: 'value' }, value + ' ') : null,
    el('span', { className: 'short' }, clipText(text, 140)),
    el('span', { className: 'conf' }, Math.round(100 * c.confidence) + '%'),
    d ? el('span', { className: 'verdict ' + d.verdict }, verdictMark[d.verdict]) : null));
}

function clipText(s, n) {
  s = String(s || '').replace(/\s+/g, ' ').trim();
  if (s.length <= n) return s;
  const cut = s.slice(0, n);
  const sp = cut.lastIndexOf(' ');
  return (sp > n / 2 ? cut.slice(0, sp) : cut) + '…';
}

// openCell shows a cell's extracts and decision and, when show is not
// false, highlights its first extract in the document view.
async function openCell(i, j, show) {
  const t = rv.current.table;
  const row = t.rows[i];
  const p = t.provisions[j];
  const c = (row.cells || []).find((x) => x.provision === p);
  if (!c) return;
  rv.cell = { row: i, col: j };
  for (const td of $('review-grid').querySelectorAll('td.open')) td.classList.remove('open');
  const btn = $('review-grid').querySelector('[data-row="' + i + '"][data-col="' + j + '"]');
  if (btn) btn.parentElement.classList.add('open');
  const d = decisionOf(row.doc_id, p);
  $('cell-title').textContent = p + ' — ' + row.doc_name;
  $('cell-meta').textContent = [c.found ? 'Found' : 'Not found' + (c.extracts && c.extracts.length ? ' (best candidate below)' : ''),
    'confidence ' + Math.round(100 * c.confidence) + '%', c.value ? 'value ' + c.value : '', c.method,
    d ? 'reviewer: ' + d.verdict + (d.by ? ' by ' + d.by : '') : 'not reviewed yet'].filter(Boolean).join(' · ');
  $('cell-extracts').replaceChildren(...(c.extracts || []).map((e, k) => el('li', null,
    el('button', { type: 'button', className: 'linkish', onclick: () => showExtract(row, p, e) },
      [e.path, pagesLabel(e.pages), 'characters ' + e.span.start + '–' + e.span.end].filter(Boolean).join(' · ')),
    el('blockquote', null, e.text))));
  $('correct-form').hidden = !(d && d.verdict === 'corrected');
  $('correct-text').value = d && d.text ? d.text : '';
  $('correct-value').value = d && d.value ? d.value : '';
  $('correct-note').value = d && d.note ? d.note : '';
  $('decide-clear').disabled = !d || rv.current.partial;
  for (const id of ['decide-accept', 'decide-reject', 'decide-correct']) $(id).disabled = !!rv.current.partial;
  for (const [id, v] of [['decide-accept', 'accepted'], ['decide-reject', 'rejected'], ['decide-correct', 'corrected']]) {
    $(id).setAttribute('aria-pressed', String(!!d && d.verdict === v));
  }
  $('review-cell').hidden = false;
  $('review').classList.add('has-cell');
  if (show !== false && c.extracts && c.extracts.length) await showExtract(row, p, c.extracts[0]);
}

async function showExtract(row, provision, e) {
  try {
    await showSource({ doc_id: row.doc_id, span: e.span }, provision);
  } catch (err) { showError(err); }
}

// decide records (or with verdict null removes) the decision on the open
// cell.
async function decide(verdict) {
  const cur = rv.current;
  if (!cur || !rv.cell || cur.partial) return;
  const row = cur.table.rows[rv.cell.row];
  const p = cur.table.provisions[rv.cell.col];
  const base = coll() + '/reviews/' + encodeURIComponent(cur.review.id) + '/decisions';
  try {
    let r;
    if (verdict === null) {
      r = await api('DELETE', base + '?doc_id=' + encodeURIComponent(row.doc_id) + '&provision=' + encodeURIComponent(p));
    } else {
      const body = { doc_id: row.doc_id, provision: p, verdict };
      const note = $('correct-note').value.trim();
      if (note) body.note = note;
      if (verdict === 'corrected') {
        body.text = $('correct-text').value.trim();
        body.value = $('correct-value').value.trim();
      }
      r = await api('POST', base, body);
    }
    cur.decisions = r.decisions || [];
    showError(null);
    const { row: i, col: j } = rv.cell;
    renderGrid();
    await openCell(i, j, false);
  } catch (err) { showError(err); }
}

// exportReview downloads the open review in a format (with the key, so not
// a plain link).
async function exportReview(format) {
  const cur = rv.current;
  if (!cur || cur.partial) return;
  try {
    const res = await fetch(API + coll() + '/reviews/' + encodeURIComponent(cur.review.id) + '/export/' + format, { headers: headers() });
    if (!res.ok) throw await errorOf(res);
    const blob = await res.blob();
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: 'review-' + state.collection + '.' + format });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) { showError(err); }
}
