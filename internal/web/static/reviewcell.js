// pakton web app: the evidence panel beside the review grid, the
// reviewer's decisions, and the reader. The panel shows the picked cell's
// answer (with its condition), confidence and decision, and its extracts,
// the answer's own words marked inside the extract they were read from.
// "Open in the contract" (Enter, a double click, or an extract's link)
// switches to reading: the contract takes most of the width, the panel
// stays beside it, and the grid waits behind "Back to the grid" (Esc).
// Accept, Reject, Correct… and Clear record the decision on the server;
// the grid marks the cell at once.
'use strict';

function setupCell() {
  $('decide-accept').addEventListener('click', () => decide('accepted'));
  $('decide-reject').addEventListener('click', () => decide('rejected'));
  $('decide-correct').addEventListener('click', startCorrecting);
  $('correct-form').addEventListener('submit', (e) => { e.preventDefault(); decide('corrected'); });
  $('decide-clear').addEventListener('click', () => decide(null));
  $('cell-open').addEventListener('click', () => openReader(0));
  $('cell-back').addEventListener('click', () => setReading(false, true));
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !document.body.classList.contains('reading')) return;
    if (e.target.closest && e.target.closest('#correct-form')) return;
    e.preventDefault();
    setReading(false, true);
  });
}

// pickCell makes cell (i, j) the open one and shows it in the panel; with
// read, it also opens the contract at its first extract.
function pickCell(i, j, read) {
  const cur = rv.current;
  if (!cur || !cur.cells[i] || !cur.cells[i][j]) return;
  const same = rv.cell && rv.cell.row === i && rv.cell.col === j;
  rv.cell = { row: i, col: j };
  markOpen(i, j);
  if (!same) renderPanel();
  if (read) openReader(0);
}

// renderPanel shows the open cell in the panel.
function renderPanel() {
  const cur = rv.current;
  const at = rv.cell;
  const c = cur && at ? cur.cells[at.row][at.col] : null;
  $('cell-empty').hidden = !!c;
  $('cell-body').hidden = !c;
  if (!c) return;
  const row = cur.table.rows[at.row];
  const p = cur.table.provisions[at.col];
  const d = decisionAt(at.row, at.col);
  const a = answerAt(at.row, at.col);
  $('cell-title').textContent = p;
  $('cell-doc').textContent = row.doc_title ? row.doc_title + ' · ' + row.doc_name : row.doc_name;
  const ans = $('cell-answer');
  ans.className = 'cell-answer cell-' + a.kind;
  ans.replaceChildren(...[el('span', { className: 'ans' }, a.kind === 'found' ? 'Found' : a.text),
    a.condition ? el('span', { className: 'cond' }, '— ' + a.condition) : null,
    a.kind === 'no' && a.excludes ? el('span', { className: 'cond' }, '— the contract excludes it') : null,
    a.was ? el('span', { className: 'was' }, 'was: ' + shortAnswer(a.was, c)) : null].filter(Boolean));
  // the parties of a party cell, or who holds the provision on what terms
  const items = a.parties.length
    ? a.parties.map((x) => el('li', null, el('b', null, x.name), x.role ? ' — “' + x.role + '”' : ''))
    : (a.holders || []).map((h) => el('li', null, el('b', null, h.party), ' — ' + holderLine(h)));
  $('cell-parties').replaceChildren(...items);
  $('cell-parties').hidden = !items.length;
  const evidence = a.was ? a.was : a;
  $('cell-meta').textContent = [
    c.found ? 'confidence ' + Math.round(100 * c.confidence) + '%'
      : 'not found (confidence it is there after all: ' + Math.round(100 * c.confidence) + '%)',
    c.method, ...(c.notes || []),
  ].filter(Boolean).join(' · ');
  $('cell-decision').textContent = d
    ? 'Reviewed: ' + d.verdict + (d.by ? ' by ' + d.by : '') + (d.at ? ', ' + new Date(d.at).toLocaleString() : '') +
      (d.verdict === 'corrected' && d.text ? '. Corrected text: “' + d.text + '”' : '') + (d.note ? '. Note: ' + d.note : '')
    : cur.partial ? 'Decisions can be taken when the review is done.' : 'Not reviewed yet.';
  $('cell-decision').className = 'cell-decision' + (d ? ' v-' + d.verdict : '');
  const exs = c.extracts || [];
  $('cell-evidence-h').textContent = !exs.length ? 'No passage'
    : evidence.kind === 'no' ? 'Evidence: the clause that excludes it'
      : c.found ? (exs.length > 1 ? exs.length + ' passages' : 'Evidence') : 'Best candidate (not found)';
  $('cell-extracts').replaceChildren(...exs.map((e, k) => el('li', null,
    el('button', { type: 'button', className: 'linkish', onclick: () => openReader(k), title: 'Open the contract here' },
      [e.path || 'Passage ' + (k + 1), pagesLabel(e.pages), 'characters ' + e.span.start + '–' + e.span.end].filter(Boolean).join(' · ')),
    extractQuote(e, spansIn(evidence, k)))));
  $('cell-open').disabled = !exs.length;
  $('correct-form').hidden = !(d && d.verdict === 'corrected');
  $('correct-text').value = d && d.text ? d.text : '';
  $('correct-value').value = d && d.value ? d.value : '';
  $('correct-note').value = d && d.note ? d.note : '';
  $('decide-clear').disabled = !d || !!cur.partial;
  for (const id of ['decide-accept', 'decide-reject', 'decide-correct']) $(id).disabled = !!cur.partial;
  for (const [id, v] of [['decide-accept', 'accepted'], ['decide-reject', 'rejected'], ['decide-correct', 'corrected']]) {
    $(id).setAttribute('aria-pressed', String(!!d && d.verdict === v));
  }
}

// holderLine says one holder's position after its name, as the engine's
// summary does: "Yes, 60 days' notice, Early Termination Fee (11.2(b))".
function holderLine(h) {
  const what = h.kind === 'yes' ? 'Yes' : h.kind === 'no' ? 'No' : (h.condition ? 'Conditional — ' + h.condition : 'Conditional');
  const notice = h.notice ? [h.notice + (/s$/.test(h.notice) ? "' notice" : "'s notice")] : [];
  return [what, ...notice, ...(h.terms || [])].join(', ');
}

// spansIn returns the answer's spans inside the k-th extract, sorted, as
// {start, end, role} (a party's name and role, and where each holder's
// terms were read, too).
function spansIn(a, k) {
  const out = [];
  for (const s of a.spans || []) if (s.extract === k && s.span) out.push({ start: s.span.start, end: s.span.end, role: s.role });
  for (const h of a.holders || []) {
    for (const s of h.spans || []) {
      if (s.extract === k && s.span && s.role !== 'value' && !out.some((o) => o.start === s.span.start)) out.push({ start: s.span.start, end: s.span.end, role: s.role });
    }
  }
  for (const p of a.parties || []) {
    for (const s of [p.name_span, p.role_span]) {
      if (s && s.extract === k && s.span && !out.some((o) => o.start === s.span.start)) out.push({ start: s.span.start, end: s.span.end, role: s.role });
    }
  }
  out.sort((x, y) => x.start - y.start);
  // Keep them apart: a span overlapping the one before is dropped.
  return out.filter((s, i) => s.end > s.start && (i === 0 || s.start >= out[i - 1].end));
}

// extractQuote shows an extract's text with the answer's spans inside it
// marked.
function extractQuote(e, spans) {
  const q = el('blockquote', null);
  const cp = cpIndex(e.text);
  const n = cp.length - 1;
  let at = 0;
  for (const s of spans) {
    if (s.start < e.span.start || s.end > e.span.end) continue;
    const from = cp[Math.min(n, s.start - e.span.start)], to = cp[Math.min(n, s.end - e.span.start)];
    if (from < at) continue;
    q.append(e.text.slice(at, from), el('mark', { className: 'hl-answer', title: roleWord[s.role] || '' }, e.text.slice(from, to)));
    at = to;
  }
  q.append(e.text.slice(at));
  return q;
}

const roleWord = { value: 'The answer', condition: 'The condition', exclusion: 'Where it is excluded', party: 'A party', party_role: 'Its defined name', notice: 'The notice', term: 'A term of the right' };

// setReading switches the Review tab between the grid and reading a
// contract (the panel stays). Leaving with back returns focus to the
// grid's open cell.
function setReading(on, back) {
  const layout = document.querySelector('main.layout');
  layout.classList.toggle('reading', on);
  document.body.classList.toggle('reading', on);
  $('cell-back').hidden = !on;
  if (!on && back && rv.cell) {
    const b = cellButton(rv.cell.row, rv.cell.col);
    if (b) moveTo(rv.cell.row, rv.cell.col);
    else $('review-grid').focus();
  }
}

// openReader opens the open cell's contract at its k-th extract, with the
// answer's span marked inside it.
async function openReader(k) {
  const cur = rv.current;
  if (!cur || !rv.cell) return;
  const { row: i, col: j } = rv.cell;
  const c = cur.cells[i][j];
  const e = c && c.extracts && c.extracts[k];
  if (!e) return;
  const a = answerAt(i, j);
  const ev = a.was || a;
  const inner = spansIn(ev, k).filter((s) => s.start >= e.span.start && s.end <= e.span.end);
  setReading(true);
  // Another contract: do not show the last one's highlight while it loads.
  if (state.doc && state.doc.id !== cur.table.rows[i].doc_id) closeDocument();
  try {
    await showSource({ doc_id: cur.table.rows[i].doc_id, span: e.span, inner },
      cur.table.provisions[j] + (ev.kind === 'no' ? ' (excluded here)' : c.found ? '' : ' (best candidate; not found)'));
  } catch (err) { showError(err); }
}

function startCorrecting() {
  if (!rv.current || rv.current.partial || !rv.cell) return;
  $('correct-form').hidden = false;
  $('correct-value').focus();
}

// decide records (or with verdict null removes) the decision on the open
// cell.
async function decide(verdict) {
  const cur = rv.current;
  if (!cur || !rv.cell || cur.partial) return;
  const { row: i, col: j } = rv.cell;
  const row = cur.table.rows[i];
  const p = cur.table.provisions[j];
  const base = coll() + '/reviews/' + encodeURIComponent(cur.review.id) + '/decisions';
  try {
    let r;
    if (verdict === null) {
      if (!decisionAt(i, j)) return;
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
    if (rv.current !== cur) return;
    cur.decisions = r.decisions || [];
    indexDecisions(cur, { row: i, col: j });
    showError(null);
    const back = !document.body.classList.contains('reading') && document.activeElement && document.activeElement.closest('#review-cell');
    updateCell(i, j);
    renderPanel();
    if (verdict === 'corrected' && back) moveTo(i, j);
  } catch (err) { showError(err); }
}
