// pakton web app: the review grid — one row per contract, one column per
// provision, one line per cell: the cell's answer (Yes, No, Conditional, a
// value such as "New York" or "3 years", Found, or Not found), coloured by
// answer, with its confidence as a bar along the cell's foot and the
// reviewer's verdict as a mark. The header row and the contract column
// stay in view while the grid scrolls. Filters narrow it by contract name,
// provision, answer, low confidence and review state; a cell filter keeps
// the contracts and provisions with a matching cell and dims the others.
// Keyboard: one cell is in the Tab order; the arrow keys, Home/End,
// PageUp/PageDown move, and moving shows the cell's evidence beside the
// grid (reviewcell.js).
'use strict';

// answerKinds are the answers a cell can give, in the order the answer
// filter lists them, with the word a cell shows.
const answerKinds = [
  ['yes', 'Yes'], ['no', 'No'], ['conditional', 'Conditional'], ['value', 'Value'], ['found', 'Found'], ['nf', 'Not found'],
];
const kindWord = Object.fromEntries(answerKinds);
const verdictGlyph = { accepted: '✓', rejected: '✗', corrected: '✎' };

// cellAnswer reads a cell's answer once the reviewer's decision is applied:
// {kind, text, condition, spans, parties, holders, summary, was}. kind is one of answerKinds
// ("found" is a found cell whose answer is its clause: a value the text
// does not give); text is what the cell shows; spans are where the answer
// was read ({extract, span, role}: code points inside one of the cell's
// extracts); holders say who holds the provision on what terms, and
// summary says it in one line; was is the engine's answer a correction
// replaced.
//
// The engine gives the answer in c.answer (docs/REVIEW.md, "The answer in
// a cell"); a cell without one (a review kept from before answers were
// read) is read from found and value.
function cellAnswer(c, d) {
  if (!c) return null;
  let a;
  const x = c.answer;
  if (x && x.kind) {
    let kind = x.kind === 'not_found' ? 'nf' : x.kind;
    if (kind === 'value' && !x.text) kind = 'found';
    if (!kindWord[kind]) kind = c.found ? 'found' : 'nf';
    a = { kind, text: x.text || kindWord[kind], condition: x.condition || '', spans: x.spans || [], parties: x.parties || [], excludes: !!x.excludes,
      holders: x.holders || [], summary: x.summary || '' };
  } else if (!c.found) {
    a = { kind: 'nf', text: 'Not found', condition: '', spans: [], parties: [], holders: [], summary: '' };
  } else {
    a = Object.assign(valueAnswer(c.value), { spans: [], parties: [], holders: [], summary: '' });
  }
  if (d && d.verdict === 'corrected') {
    const was = a;
    a = Object.assign(d.value ? valueAnswer(d.value) : { kind: 'found', text: 'Found', condition: '' }, { spans: [], parties: [], holders: [], summary: '' });
    a.was = was;
  }
  return a;
}

// valueAnswer reads a value as an answer: Yes, No, or the value itself.
function valueAnswer(v) {
  v = String(v || '').trim();
  if (/^yes$/i.test(v)) return { kind: 'yes', text: 'Yes', condition: '' };
  if (/^no$/i.test(v)) return { kind: 'no', text: 'No', condition: '' };
  if (v) return { kind: 'value', text: v, condition: '' };
  return { kind: 'found', text: 'Found', condition: '' };
}

// clauseLabel names the clause a path ends in so that it cannot be read as
// a value: a bare number is a section ("§ 6.3"), and an item ("(d)") keeps
// the clause it belongs to ("§ 9.4 (d)").
function clauseLabel(path) {
  if (!path) return '';
  const parts = path.split(' > ');
  let last = parts.pop();
  if (/^\(?[a-z0-9]{1,4}\)$/i.test(last) && parts.length) last = parts.pop() + ' ' + last;
  return /^[0-9]/.test(last) ? '§ ' + last : last;
}

// shortAnswer is the one line a grid cell shows.
function shortAnswer(a, c) {
  if (a.summary) return a.summary;
  if (a.kind === 'conditional' && a.condition) return 'Conditional — ' + a.condition;
  if (a.kind === 'found' && !a.was) {
    const path = c && c.extracts && c.extracts[0] && c.extracts[0].path;
    const where = clauseLabel(path);
    return where ? 'Found in ' + where : 'Found';
  }
  return a.text;
}

function setupGrid() {
  for (const id of ['review-filter-name', 'review-filter-prov', 'review-filter-answer', 'review-filter-state', 'review-filter-low']) {
    $(id).addEventListener('input', renderGrid);
    $(id).addEventListener('change', renderGrid);
  }
  $('review-filter-clear').addEventListener('click', () => {
    $('review-filter-name').value = '';
    for (const id of ['review-filter-prov', 'review-filter-answer', 'review-filter-state']) $(id).value = '';
    $('review-filter-low').checked = false;
    renderGrid();
  });
  const grid = $('review-grid');
  grid.addEventListener('keydown', gridKeys);
  grid.addEventListener('focusin', (e) => {
    const b = e.target.closest('.cell');
    if (b) pickCell(+b.dataset.row, +b.dataset.col, false);
  });
  grid.addEventListener('click', (e) => {
    const h = e.target.closest('.sort');
    if (h) { sortBy(+h.dataset.sort); return; }
    const b = e.target.closest('.cell');
    if (!b) return;
    b.focus();
    pickCell(+b.dataset.row, +b.dataset.col, false);
    // In one column the panel is below the grid: bring it up.
    if (window.matchMedia('(max-width: 900px)').matches) reveal($('review-cell'));
  });
  grid.addEventListener('dblclick', (e) => {
    const b = e.target.closest('.cell');
    if (b) openReader(0);
  });
}

// showTable puts a table in the grid; a partial one (a review still
// running, or stopped) takes no decisions.
function showTable(review, table, decisions, partial) {
  const same = rv.current && rv.current.review.id === review.id;
  rv.current = { review, table, decisions, partial };
  $('review-delete').hidden = false;
  indexTable(rv.current);
  if (!same) {
    rv.cell = null;
    rv.sort = null;
    setReading(false);
    renderPanel();
  }
  const prov = $('review-filter-prov');
  const keep = prov.value;
  prov.replaceChildren(el('option', { value: '' }, 'All provisions'),
    ...table.provisions.map((p, i) => el('option', { value: String(i) }, p)));
  prov.value = keep;
  $('review-results').hidden = false;
  $('review-pick').value = review.id;
  for (const b of document.querySelectorAll('[data-export]')) b.disabled = partial;
  renderGrid();
  if (rv.cell) renderPanel();
}

// indexTable keeps, for a review, each row's cells by provision and each
// cell's decision, so the grid does not search for them.
function indexTable(cur) {
  const t = cur.table;
  const at = new Map(t.provisions.map((p, j) => [p, j]));
  cur.cells = t.rows.map((row) => {
    const out = new Array(t.provisions.length).fill(null);
    for (const c of row.cells || []) if (at.has(c.provision)) out[at.get(c.provision)] = c;
    return out;
  });
  indexDecisions(cur);
}

// indexDecisions keeps each cell's decision, and its answer with the
// decision applied, for the grid's many reads.
function indexDecisions(cur, only) {
  cur.decided = new Map((cur.decisions || []).map((d) => [d.doc_id + '\u0000' + d.provision, d]));
  if (only && cur.answers) cur.answers[only.row][only.col] = undefined; // the one cell decided
  else cur.answers = cur.cells.map((row) => new Array(row.length).fill(undefined));
}

function decisionAt(i, j) {
  const cur = rv.current;
  return cur.decided.get(cur.table.rows[i].doc_id + '\u0000' + cur.table.provisions[j]) || null;
}

// answerAt is cell (i, j)'s answer with its decision applied (null for a
// row without the cell).
function answerAt(i, j) {
  const cur = rv.current;
  let a = cur.answers[i][j];
  if (a === undefined) a = cur.answers[i][j] = cellAnswer(cur.cells[i][j], decisionAt(i, j));
  return a;
}

// lowConfidence: a cell the engine is unsure of either way.
const lowConfidence = (c) => c.confidence >= 0.2 && c.confidence < 0.6;

// filters reads the filter controls.
function filters() {
  return {
    words: $('review-filter-name').value.toLowerCase().split(/\s+/).filter(Boolean),
    col: $('review-filter-prov').value,
    answer: $('review-filter-answer').value,
    low: $('review-filter-low').checked,
    state: $('review-filter-state').value,
  };
}

// cellMatches applies the cell filters (answer, low confidence, review
// state) to cell (i, j).
function cellMatches(f, i, j) {
  const c = rv.current.cells[i][j];
  if (!c) return false;
  const d = f.state ? decisionAt(i, j) : null;
  if (f.answer) {
    const k = answerAt(i, j).kind;
    if (f.answer === 'answered' ? k === 'nf' : k !== f.answer) return false;
  }
  if (f.low && !lowConfidence(c)) return false;
  switch (f.state) {
    case 'open': if (d) return false; break;
    case 'decided': if (!d) return false; break;
    case '': break;
    default: if (!d || d.verdict !== f.state) return false;
  }
  return true;
}

// renderGrid draws the grid with the filters applied.
function renderGrid() {
  const cur = rv.current;
  if (!cur) return;
  const t = cur.table;
  const f = filters();
  const cellFilter = !!(f.answer || f.low || f.state);
  const cols0 = f.col === '' ? t.provisions.map((_, j) => j) : [Number(f.col)];
  countAnswers(cols0);
  // Rows: the name matches, and with a cell filter some cell matches.
  const rows = [];
  const colHit = new Set();
  t.rows.forEach((row, i) => {
    const name = ((row.doc_title || '') + ' ' + (row.doc_name || '')).toLowerCase();
    if (f.words.some((w) => !name.includes(w))) return;
    if (!cellFilter) { rows.push(i); return; }
    let hit = false;
    for (const j of cols0) {
      if (cellMatches(f, i, j)) { hit = true; colHit.add(j); }
    }
    if (hit) rows.push(i);
  });
  const cols = cellFilter ? cols0.filter((j) => colHit.has(j)) : cols0;
  sortRows(rows);
  // One row per family (the same contract in several files) unless a
  // filter is on: its other copies are one click away (dataroom.js).
  if (typeof reviewFamilyRows === 'function' && !f.words.length && !cellFilter) rows.splice(0, rows.length, ...reviewFamilyRows(t, rows));
  cur.view = { rows, cols, f, cellFilter };
  const sorted = (col) => rv.sort && rv.sort.col === col ? (rv.sort.dir > 0 ? 'ascending' : 'descending') : null;
  const head = el('tr', null,
    el('th', { scope: 'col', className: 'corner', 'aria-sort': sorted(-1) },
      el('button', { type: 'button', className: 'sort', 'data-sort': -1, tabIndex: -1, title: 'Sort by contract name' }, 'Contract')),
    cols.map((j) => el('th', { scope: 'col', title: t.provisions[j] + ' — click to sort by its answers', 'aria-sort': sorted(j) },
      el('button', { type: 'button', className: 'sort', 'data-sort': j, tabIndex: -1 }, el('span', { className: 'ph' }, breakable(t.provisions[j]))))));
  // The rows in view come at once; the rest follow in chunks, so a large
  // review (hundreds of contracts × dozens of provisions) shows at once
  // and stays responsive while it fills in (finishGrid completes it when
  // the keyboard goes further).
  const tbody = el('tbody', null);
  cur.pending = { rows: rows.slice(), tbody, gen: (cur.pending ? cur.pending.gen : 0) + 1 };
  appendRows(cur, gridFirstRows);
  // Fixed columns (table-layout: fixed needs the table's width).
  $('review-grid').style.width = 'calc(var(--contract-w) + ' + cols.length + ' * var(--cell-w))';
  $('review-grid').replaceChildren(
    el('colgroup', null, el('col', { className: 'c-contract' }), cols.map(() => el('col', { className: 'c-prov' }))),
    el('thead', null, head), tbody);
  if (cur.pending.rows.length) scheduleRows(cur, cur.pending.gen);
  const filtered = f.words.length || f.col !== '' || cellFilter;
  $('review-filter-clear').hidden = !filtered;
  $('review-shown').textContent = rows.length + ' of ' + t.rows.length + ' contracts · ' + cols.length + ' of ' +
    t.provisions.length + ' provisions' + (cur.partial ? ' (finished so far; decisions and exports when the review is done)' : '');
  // Keep one cell in the Tab order: the open one when shown, else the first.
  const at = rv.cell && rows.includes(rv.cell.row) && cols.includes(rv.cell.col) ? rv.cell : rows.length && cols.length ? { row: rows[0], col: cols[0] } : null;
  if (at) {
    const b = cellButton(at.row, at.col);
    if (b) b.tabIndex = 0;
    if (rv.cell && at === rv.cell) b.closest('td').classList.add('open');
  }
}

// answerOrder sorts answers: Yes, Conditional, No, values, Found, Not
// found.
const answerOrder = { yes: 0, conditional: 1, no: 2, value: 3, found: 4, nf: 5 };

// sortRows orders the grid's rows as the reader chose (rv.sort: col, -1
// for the contract's name, and dir): by the column's answer, then its
// text (numbers in dates and durations in order), then the contract's
// name; rows without the cell last. The table's own order otherwise.
function sortRows(rows) {
  const s = rv.sort, cur = rv.current;
  if (!s) return;
  const t = cur.table;
  const byName = (a, b) => (t.rows[a].doc_name || '').localeCompare(t.rows[b].doc_name || '', undefined, { numeric: true });
  if (s.col < 0) { rows.sort((a, b) => s.dir * byName(a, b)); return; }
  rows.sort((a, b) => {
    const x = cur.cells[a][s.col] ? answerAt(a, s.col) : null, y = cur.cells[b][s.col] ? answerAt(b, s.col) : null;
    if (!x || !y) return (x ? 0 : 1) - (y ? 0 : 1);
    const k = answerOrder[x.kind] - answerOrder[y.kind] ||
      x.text.localeCompare(y.text, undefined, { numeric: true, sensitivity: 'base' });
    return s.dir * k || byName(a, b);
  });
}

// sortBy sorts by a column: ascending, then descending, then unsorted.
function sortBy(col) {
  const s = rv.sort;
  rv.sort = !s || s.col !== col ? { col, dir: 1 } : s.dir > 0 ? { col, dir: -1 } : null;
  renderGrid();
  const b = $('review-grid').querySelector('.sort[data-sort="' + col + '"]');
  if (b) b.focus();
}

// breakable lets a long word of a column's name break where it must, with
// a hyphen: a soft hyphen between its letters, not within three of its
// ends ("Confidentia-lity" in a narrow column).
function breakable(name) {
  return name.replace(/\p{L}{12,}/gu, (w) => {
    const cs = [...w];
    return cs.map((c, k) => (k >= 3 && k <= cs.length - 3 ? '\u00ad' : '') + c).join('');
  });
}

// gridFirstRows are the rows drawn at once; gridChunk the rows drawn in
// each later step.
const gridFirstRows = 60, gridChunk = 40;

// appendRows draws the next n pending rows of the grid.
function appendRows(cur, n) {
  const p = cur.pending, v = cur.view, t = cur.table;
  const frag = document.createDocumentFragment();
  for (const i of p.rows.splice(0, n)) {
    const row = t.rows[i];
    frag.append(el('tr', null,
      el('th', { scope: 'row', title: (row.doc_title ? row.doc_title + '\n' : '') + row.doc_name + (row.error ? '\n' + row.error : '') },
        el('span', { className: 'cn' }, row.doc_title || row.doc_name), row.error ? el('span', { className: 'err' }, ' — could not be reviewed') : null,
        typeof reviewFamilyBadge === 'function' ? reviewFamilyBadge(row) : null),
      v.cols.map((j) => gridCell(i, j, v.cellFilter && !cellMatches(v.f, i, j)))));
  }
  p.tbody.append(frag);
}

function scheduleRows(cur, gen) {
  setTimeout(() => {
    if (rv.current !== cur || !cur.pending || cur.pending.gen !== gen || !cur.pending.rows.length) return;
    appendRows(cur, gridChunk);
    if (cur.pending.rows.length) scheduleRows(cur, gen);
  }, 0);
}

// finishGrid draws every row still pending.
function finishGrid() {
  const cur = rv.current;
  if (cur && cur.pending && cur.pending.rows.length) appendRows(cur, cur.pending.rows.length);
}

// countAnswers shows, in the answer filter, how many cells give each
// answer in the given columns.
function countAnswers(cols) {
  const cur = rv.current;
  const n = Object.fromEntries(answerKinds.map(([k]) => [k, 0]));
  cur.table.rows.forEach((_, i) => {
    for (const j of cols) {
      const c = cur.cells[i][j];
      if (c) n[answerAt(i, j).kind]++;
    }
  });
  const sel = $('review-filter-answer');
  const keep = sel.value;
  const answered = Object.entries(n).reduce((s, [k, v]) => s + (k === 'nf' ? 0 : v), 0);
  sel.replaceChildren(el('option', { value: '' }, 'All answers'),
    el('option', { value: 'answered' }, 'Any answer (' + answered + ')'),
    ...answerKinds.map(([k, w]) => el('option', { value: k }, w + ' (' + n[k] + ')')));
  sel.value = keep;
}

function cellButton(i, j) {
  const find = () => $('review-grid').querySelector('.cell[data-row="' + i + '"][data-col="' + j + '"]');
  const b = find();
  if (b || !rv.current || !rv.current.pending || !rv.current.pending.rows.includes(i)) return b;
  finishGrid(); // a row not drawn yet
  return find();
}

// gridCell renders cell (i, j); dim marks a cell that does not match the
// cell filters in a row shown because another cell does.
function gridCell(i, j, dim) {
  const cur = rv.current;
  const c = cur.cells[i][j];
  if (!c) return el('td', { className: 'none', role: 'gridcell' });
  const d = decisionAt(i, j);
  const a = answerAt(i, j);
  const p = cur.table.provisions[j];
  const conf = Math.round(100 * c.confidence);
  const line = shortAnswer(a, c);
  const said = [p + ': ' + (a.kind === 'nf' ? 'Not found' : line), 'confidence ' + conf + '%'];
  if (a.was) said.push('corrected (was ' + shortAnswer(a.was, c) + ')');
  else if (d) said.push(d.verdict);
  else said.push('not reviewed');
  const cls = ['cell-' + a.kind];
  if (lowConfidence(c)) cls.push('cell-low');
  if (d) cls.push('decided', 'v-' + d.verdict);
  if (dim) cls.push('dim');
  if (rv.cell && rv.cell.row === i && rv.cell.col === j) cls.push('open');
  return el('td', { className: cls.join(' '), role: 'gridcell' },
    el('button', {
      type: 'button', className: 'cell', 'data-row': i, 'data-col': j, tabIndex: -1,
      'aria-label': (cur.table.rows[i].doc_title || cur.table.rows[i].doc_name) + ' — ' + said.join(', '),
      title: said.join('\n'),
    },
    el('span', { className: 'ans' }, line),
    d ? el('span', { className: 'verdict ' + d.verdict, 'aria-hidden': 'true' }, verdictGlyph[d.verdict]) : null,
    el('span', { className: 'cf', 'aria-hidden': 'true', style: '--c:' + conf + '%' })));
}

// updateCell redraws one cell after a decision, keeping focus on it.
function updateCell(i, j) {
  const old = cellButton(i, j);
  if (!old) return;
  const td = old.closest('td');
  const focused = document.activeElement === old;
  const v = rv.current.view;
  const next = gridCell(i, j, v && v.cellFilter && !cellMatches(v.f, i, j));
  next.firstChild.tabIndex = old.tabIndex;
  td.replaceWith(next);
  if (focused) next.firstChild.focus({ preventScroll: true });
  countAnswers(v && v.f.col !== '' ? [Number(v.f.col)] : rv.current.table.provisions.map((_, k) => k));
}

// markOpen marks cell (i, j) as the open one and makes it the grid's Tab
// stop.
function markOpen(i, j) {
  for (const td of $('review-grid').querySelectorAll('td.open')) td.classList.remove('open');
  for (const b of $('review-grid').querySelectorAll('.cell[tabindex="0"]')) b.tabIndex = -1;
  const b = cellButton(i, j);
  if (!b) return;
  b.tabIndex = 0;
  b.closest('td').classList.add('open');
}

// moveTo focuses cell (i, j) of the grid and scrolls it into view below
// the sticky header and beside the sticky contract column.
function moveTo(i, j) {
  const b = cellButton(i, j);
  if (!b) return;
  markOpen(i, j);
  b.focus({ preventScroll: true });
  const wrap = $('grid-wrap');
  const td = b.closest('td');
  const head = $('review-grid').tHead.getBoundingClientRect().height;
  const side = $('review-grid').querySelector('tbody th').getBoundingClientRect().width;
  if (td.offsetTop - head < wrap.scrollTop) wrap.scrollTop = td.offsetTop - head;
  else if (td.offsetTop + td.offsetHeight > wrap.scrollTop + wrap.clientHeight) wrap.scrollTop = td.offsetTop + td.offsetHeight - wrap.clientHeight;
  if (td.offsetLeft - side < wrap.scrollLeft) wrap.scrollLeft = td.offsetLeft - side;
  else if (td.offsetLeft + td.offsetWidth > wrap.scrollLeft + wrap.clientWidth) wrap.scrollLeft = td.offsetLeft + td.offsetWidth - wrap.clientWidth;
}

// gridKeys moves through the grid and acts on the focused cell.
function gridKeys(e) {
  const v = rv.current && rv.current.view;
  if (!v || e.altKey || e.metaKey) return;
  const h = e.target.closest('.sort');
  if (h) { headerKeys(e, h, v); return; }
  const b = e.target.closest('.cell');
  if (!b) return;
  const r = v.rows.indexOf(+b.dataset.row), c = v.cols.indexOf(+b.dataset.col);
  const page = Math.max(1, Math.floor($('grid-wrap').clientHeight / b.offsetHeight) - 2);
  let to = null;
  switch (e.key) {
    case 'ArrowDown': to = [r + 1, c]; break;
    case 'ArrowUp':
      if (r === 0) { e.preventDefault(); headerButton(v.cols[c]).focus(); return; }
      to = [r - 1, c];
      break;
    case 'ArrowRight': to = [r, c + 1]; break;
    case 'ArrowLeft': to = [r, c - 1]; break;
    case 'Home': to = e.ctrlKey ? [0, 0] : [r, 0]; break;
    case 'End': to = e.ctrlKey ? [v.rows.length - 1, v.cols.length - 1] : [r, v.cols.length - 1]; break;
    case 'PageDown': to = [Math.min(v.rows.length - 1, r + page), c]; break;
    case 'PageUp': to = [Math.max(0, r - page), c]; break;
    case 'Enter': openReader(0); break;
    default:
      if (e.ctrlKey) return;
      switch (e.key.toLowerCase()) {
        case 'a': decide('accepted'); break;
        case 'r': decide('rejected'); break;
        case 'c': startCorrecting(); break;
        case 'x': decide(null); break;
        case 'n': nextOpenCell(r, c); break;
        default: return;
      }
  }
  e.preventDefault();
  if (to && to[0] >= 0 && to[0] < v.rows.length && to[1] >= 0 && to[1] < v.cols.length) moveTo(v.rows[to[0]], v.cols[to[1]]);
}

function headerButton(col) {
  return $('review-grid').querySelector('.sort[data-sort="' + col + '"]');
}

// headerKeys moves along the header row (Enter or Space sorts, as the
// buttons do) and back down into the grid.
function headerKeys(e, h, v) {
  const col = +h.dataset.sort;
  const c = col < 0 ? -1 : v.cols.indexOf(col);
  let to = null;
  switch (e.key) {
    case 'ArrowLeft': to = c > 0 ? v.cols[c - 1] : c === 0 ? -1 : null; break;
    case 'ArrowRight': to = c + 1 < v.cols.length ? v.cols[c + 1] : null; break;
    case 'ArrowDown':
      e.preventDefault();
      if (v.rows.length && c >= 0) moveTo(v.rows[0], col);
      return;
    default: return;
  }
  e.preventDefault();
  if (to !== null) headerButton(to).focus();
}

// nextOpenCell moves to the next cell, row by row, that nobody has
// reviewed yet.
function nextOpenCell(r, c) {
  const v = rv.current.view;
  const n = v.rows.length * v.cols.length;
  for (let k = 1; k <= n; k++) {
    const at = (r * v.cols.length + c + k) % n;
    const i = v.rows[Math.floor(at / v.cols.length)], j = v.cols[at % v.cols.length];
    if (rv.current.cells[i][j] && !decisionAt(i, j)) { moveTo(i, j); return; }
  }
}
