// pakton web app: the Review tab — run a playbook over the collection, watch
// its progress, and open a review. The grid (contracts × provisions, one
// answer a cell, filters, keyboard) is reviewgrid.js; the evidence panel
// beside it, the decisions and the reader are reviewcell.js.
'use strict';

const rv = {
  list: [],        // the collection's reviews, newest first
  current: null,   // {review, table, decisions}
  cell: null,      // {row, col} of the open cell
  watching: null,  // AbortController of the progress stream
  watched: null,   // the review whose progress is shown
  playbooks: null, // the server's built-in playbooks
  sort: null,      // the grid's order: {col (-1: contract name), dir (1, -1)}, or null
};

function setupReview() {
  $('tab-ask').addEventListener('click', () => setTab('ask'));
  $('tab-review').addEventListener('click', () => setTab('review'));
  setupDeadlines();
  $('review-form').addEventListener('submit', startReview);
  $('review-playbook').addEventListener('change', () => {
    const id = $('review-playbook').value;
    $('review-upload').hidden = id !== 'upload';
    // the provisions to pick from are the chosen built-in playbook's
    const pb = (rv.playbooks || []).find((p) => p.id === id);
    if (pb) {
      $('review-provisions').value = '';
      renderProvisionPicker(pb.provisions);
    }
  });
  $('review-pick').addEventListener('change', (e) => e.target.value && openReview(e.target.value));
  for (const b of document.querySelectorAll('[data-export]')) b.addEventListener('click', () => exportReview(b.dataset.export));
  $('review-cancel').addEventListener('click', cancelReview);
  $('review-resume').addEventListener('click', resumeReview);
  setupGrid();
  setupCell();
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

// setTab switches between asking, reviewing and the deadlines; the
// document view stays.
function setTab(name) {
  const reviewing = name === 'review';
  const dating = name === 'deadlines';
  const away = reviewing || dating;
  $('tab-ask').setAttribute('aria-selected', String(!away));
  $('tab-review').setAttribute('aria-selected', String(reviewing));
  $('tab-deadlines').setAttribute('aria-selected', String(dating));
  document.querySelector('main.layout').classList.toggle('reviewing', reviewing);
  document.querySelector('main.layout').classList.toggle('dating', dating);
  document.body.classList.toggle('reviewing', reviewing);
  if (!reviewing) setReading(false);
  for (const id of ['ask-form', 'search-form']) $(id).hidden = away;
  for (const id of ['activity', 'results', 'report']) {
    const e = $(id);
    if (away) {
      if (e.dataset.wasHidden === undefined || e.dataset.away !== '1') e.dataset.wasHidden = e.hidden ? '1' : '';
      e.hidden = true;
    } else if (e.dataset.wasHidden !== undefined) {
      e.hidden = e.dataset.wasHidden === '1';
    }
    e.dataset.away = away ? '1' : '';
  }
  $('review').hidden = !reviewing;
  $('deadlines').hidden = !dating;
  if (reviewing) loadReviews();
  if (dating) loadDeadlines(false);
}

// loadReviews lists the collection's reviews and opens the newest.
async function loadReviews() {
  try {
    if (!rv.playbooks) {
      const r = await api('GET', '/playbooks');
      rv.playbooks = listOf(r, 'playbooks');
      // one option per built-in playbook, before "Upload a playbook"
      const sel = $('review-playbook');
      const upload = sel.querySelector('option[value="upload"]');
      for (const o of [...sel.options]) if (o.value !== 'upload') o.remove();
      for (const pb of rv.playbooks) {
        sel.insertBefore(el('option', { value: pb.id }, 'Built-in: ' + pb.name + ' (' + pb.provisions.length + ' provisions)'), upload);
      }
      sel.selectedIndex = 0;
      if (rv.playbooks[0]) renderProvisionPicker(rv.playbooks[0].provisions);
    }
    await loadReviewList();
    if (rv.current && rv.current.review.collection === state.collection) return;
    rv.current = null;
    $('review-results').hidden = true;
    $('review-new').open = !rv.list.length;
    if (rv.list.length) await openReview(rv.list[0].id);
  } catch (err) { showError(err); }
}

// renderProvisionPicker lists the playbook's provisions by group, each a
// checkbox: what is ticked is written into the Provisions box (empty: all).
function renderProvisionPicker(provs) {
  const box = $('review-picker-list');
  const groups = new Map();
  for (const p of provs) {
    const g = p.group || 'Other';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(p);
  }
  const sync = () => {
    const picked = [...box.querySelectorAll('input:checked')].map((c) => c.value);
    $('review-provisions').value = picked.join(', ');
    $('review-picked').textContent = picked.length ? picked.length + ' of ' + provs.length + ' chosen' : 'all ' + provs.length;
  };
  box.replaceChildren(...[...groups].map(([g, ps]) => el('fieldset', { className: 'picker-group' },
    el('legend', {}, g),
    ps.map((p) => el('label', { className: 'check', title: p.definition || '' },
      el('input', { type: 'checkbox', value: p.name, onchange: sync }), p.name)))));
  $('review-picker-none').onclick = () => { for (const c of box.querySelectorAll('input')) c.checked = false; sync(); };
  $('review-provisions').addEventListener('input', () => {
    const typed = new Set($('review-provisions').value.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean));
    for (const c of box.querySelectorAll('input')) c.checked = typed.has(c.value.toLowerCase());
  });
  sync();
}

// resetReview forgets the review shown (another collection was picked).
function resetReview() {
  if (rv.watching) rv.watching.abort();
  rv.current = null;
  rv.cell = null;
  rv.list = [];
  setReading(false);
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
    body.playbook = $('review-playbook').value;
  }
  showError(null);
  $('review-start').disabled = true;
  try {
    const r = await api('POST', coll() + '/reviews', body);
    rv.current = null;
    $('review-new').open = false;
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
        rv.watched = null; // a partial table still on its way must not replace the finished one
        await openReview(review.id);
        loadReviewList().catch(showError);
        return;
      } else if (event === 'error') {
        $('review-progress').hidden = true;
        rv.watched = null;
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
  renderReviewPick();
}

// renderReviewPick lists the reviews in the picker (safety.js hides a
// review being deleted through it).
function renderReviewPick() {
  const pick = $('review-pick');
  pick.replaceChildren(el('option', { value: '' }, rv.list.length ? 'Earlier reviews…' : 'No reviews yet'),
    ...rv.list.map((x) => el('option', { value: x.id },
      (x.title || x.playbook) + ' — ' + new Date(x.created).toLocaleString() + ' (' + x.state + ')')));
  pick.disabled = !rv.list.length;
  if (rv.current) pick.value = rv.current.review.id;
  $('review-delete').hidden = !rv.current;
}

// openReview shows a review: its grid when done, its progress while it runs.
async function openReview(id) {
  try {
    const r = await api('GET', coll() + '/reviews/' + encodeURIComponent(id) + '?partial=1');
    rv.families = r.families || []; // one row per family (dataroom.js)
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
    $('review-status').textContent = r.table.rows.length + ' contracts × ' +
      r.table.provisions.length + ' provisions, ' + (s.found || 0) + ' of ' + (s.cells || 0) + ' cells found' +
      (s.failed ? ', ' + s.failed + ' contract(s) could not be reviewed' : '') + '.';
  } catch (err) { showError(err); }
}

// showPartial shows the rows a running review has finished so far.
async function showPartial(id) {
  try {
    const r = await api('GET', coll() + '/reviews/' + encodeURIComponent(id) + '?partial=1');
    // Only while the review is still being watched, and never over its
    // finished table (this answer may arrive after the review is done).
    const done = rv.current && rv.current.review.id === id && !rv.current.partial;
    if (r.partial && rv.watched && rv.watched.id === id && !done) showTable(r.review, r.partial, [], true);
  } catch (_) { /* the finished table comes at the end anyway */ }
}

// exportName reads the file name the server gives an export (named after
// the review) from its Content-Disposition: filename*=utf-8''… (RFC 2231,
// for a name that is not ASCII) or filename="…".
function exportName(cd) {
  if (!cd) return '';
  let m = /filename\*=utf-8''([^;]+)/i.exec(cd);
  if (m) {
    try { return decodeURIComponent(m[1]); } catch (_) { /* fall through */ }
  }
  m = /filename="((?:[^"\\]|\\.)*)"/i.exec(cd) || /filename=([^;\s]+)/i.exec(cd);
  return m ? m[1].replace(/\\(.)/g, '$1') : '';
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
    const a = el('a', { href: url, download: exportName(res.headers.get('Content-Disposition')) || 'review.' + format });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) { showError(err); }
}
