// pakton web app: data rooms — a document's details (format, folder,
// archive, OCR confidence, e-mail and attachments, the same contract in
// other files), families in the document list, folders, and the
// clause-by-clause comparison of two documents.
'use strict';

// ---- families and folders in the document list ----

// loadFamilies fetches the collection's families; the list then shows one
// row per family with its other members one click away.
async function loadFamilies() {
  applyFamilies(await fetchFamilies());
}

// fetchFamilies asks for the collection's families: [] from an older
// server, which has none (one row per document).
async function fetchFamilies() {
  try {
    return listOf(await api('GET', coll() + '/families'), 'families');
  } catch (_) {
    return [];
  }
}

// applyFamilies makes families the ones the document list is drawn with.
function applyFamilies(families) {
  state.families = families;
  state.familyOf = new Map();
  for (const f of state.families) {
    for (const m of f.members || []) state.familyOf.set(m.id, f);
  }
  renderFolders();
}

// familyRows turns the documents into list rows: a family's primary copy
// stands for it (with a count), its other members are listed under it when
// the family is open, or when the filter matches them.
function familyRows(docs, filtering) {
  if (!state.familyOf || filtering) return docs.map((d) => ({ doc: d }));
  const byId = new Map(docs.map((d) => [d.id, d]));
  const rows = [];
  const done = new Set();
  for (const d of docs) {
    if (done.has(d.id)) continue;
    const f = state.familyOf.get(d.id);
    if (!f) { rows.push({ doc: d }); continue; }
    const members = (f.members || []).map((m) => byId.get(m.id)).filter(Boolean);
    members.forEach((m) => done.add(m.id));
    const primary = byId.get(f.primary) || members[0];
    rows.push({ doc: primary, family: f, others: members.filter((m) => m !== primary) });
    if (state.openFamilies && state.openFamilies.has(f.id)) {
      for (const m of members) if (m !== primary) rows.push({ doc: m, member: true });
    }
  }
  return rows;
}

function toggleFamily(id) {
  state.openFamilies = state.openFamilies || new Set();
  if (state.openFamilies.has(id)) state.openFamilies.delete(id); else state.openFamilies.add(id);
  renderDocuments();
}

// renderFolders fills the folder filter from the documents' folders.
function renderFolders() {
  const sel = $('doc-folder');
  if (!sel) return;
  const counts = new Map();
  for (const d of state.docs || []) {
    let f = d.folder || '';
    while (f) {
      counts.set(f, (counts.get(f) || 0) + 1);
      const i = f.lastIndexOf('/');
      f = i < 0 ? '' : f.slice(0, i);
    }
  }
  const keep = sel.value;
  const names = [...counts.keys()].sort();
  sel.replaceChildren(el('option', { value: '' }, 'All folders'),
    ...names.map((f) => el('option', { value: f }, f + ' (' + counts.get(f) + ')')));
  sel.value = names.includes(keep) ? keep : '';
  $('doc-folder-row').hidden = names.length === 0;
}

// inFolder reports whether document d is filed in folder f or below it.
function inFolder(d, f) {
  if (!f) return true;
  const g = (d.folder || '').toLowerCase();
  f = f.toLowerCase();
  return g === f || g.startsWith(f + '/');
}

// ---- a document's details ----

const formatWords = {
  text: 'plain text', html: 'HTML', docx: 'Word (.docx)', doc: 'Word 97–2003 (.doc)', rtf: 'Rich Text Format',
  odt: 'OpenDocument text', pdf: 'PDF with a text layer', 'pdf-ocr': 'PDF, scanned pages read by OCR',
  email: 'e-mail message', 'tiff-ocr': 'TIFF scan read by OCR', 'png-ocr': 'PNG scan read by OCR', 'jpeg-ocr': 'JPEG scan read by OCR',
};

function toggleDetails() {
  const panel = $('details-panel');
  const open = panel.hidden;
  $('details-toggle').setAttribute('aria-pressed', String(open));
  panel.hidden = !open;
  if (open && state.doc) renderDetails(state.doc);
}

// renderDetails shows what `pakton docs show` prints for the open document.
function renderDetails(doc) {
  const body = $('details-body');
  if (!body) return;
  const d = doc.details || {};
  const m = d.meta || {};
  const rows = [];
  const row = (k, ...v) => { if (v.some((x) => x !== '' && x != null)) rows.push(el('dt', {}, k), el('dd', {}, ...v)); };
  const docLink = (ref, label) => ref && ref.id
    ? el('button', { type: 'button', className: 'linkish', onclick: () => openDocument(ref.id).catch(showError) }, label || ref.name)
    : el('span', {}, (label || ref.name) + (ref.note ? ' (' + ref.note + ')' : ''));
  row('Format', (formatWords[doc.format] || doc.format || '') + (m.reader ? ', read by ' + m.reader : ''));
  row('Folder', doc.folder || '(top level)');
  if (doc.archive) row('Archive', doc.archive + ', entry ' + doc.entry);
  if (Array.isArray(doc.pages) && doc.pages.length) row('Pages', String(doc.pages.length));
  row('Title', d.title || '');
  row('Parties', (d.parties || []).join('; '));
  row('Type', d.type || '');
  if ((d.names || []).length) row('Names', d.names.map((n) => n.text + ' (' + n.kind + ')').join('; '));
  if (m.ocr) {
    const o = m.ocr;
    row('OCR', o.engine + (o.words ? ', mean word confidence ' + Number(o.confidence).toFixed(1) + ' of 100 over ' + o.words + ' words' : ', no words recognised'));
    if ((o.pages || []).length > 1) {
      row('', o.pages.map((p, i) => 'p. ' + p + ': ' + Number((o.page_confidence || [])[i]).toFixed(1)).join(', '));
    }
    const turned = (o.page_turned || []).map((a, i) => (a ? 'p. ' + o.pages[i] + ' by ' + Number(a).toFixed(1) + '°' : '')).filter(Boolean);
    if (turned.length) row('', 'turned straight before OCR (fed askew): ' + turned.join(', '));
  }
  if (m.message) {
    for (const [k, v] of [['From', m.message.from], ['To', m.message.to], ['Cc', m.message.cc], ['Date', m.message.date], ['Subject', m.message.subject]]) row(k, v || '');
  }
  if ((d.attachments || []).length) {
    row('Attachments', el('ul', { className: 'plain' }, ...d.attachments.map((a) => el('li', {}, docLink(a)))));
  }
  if (d.parent) row('Attached to', docLink(d.parent));
  if ((d.duplicates || []).length) {
    row('Same contract', el('ul', { className: 'plain' }, ...d.duplicates.map((dup) => el('li', {},
      docLink(dup), dup.note ? el('span', { className: 'hint' }, ' — ' + dup.note) : null, ' ',
      el('button', { type: 'button', className: 'linkish', onclick: () => runCompare(doc.id, dup.id).catch(showError) }, 'compare')))));
  }
  const text = new Blob([doc.text], { type: 'text/plain;charset=utf-8' });
  const a = el('a', { href: URL.createObjectURL(text), download: (doc.name || doc.id).split('/').pop() + '.txt' }, 'Download the text as stored');
  body.replaceChildren(el('dl', { className: 'details' }, ...rows),
    el('p', { className: 'hint' }, a, ' — the text every span and citation points into.'),
    compareForm(doc));
}

// compareForm lets the user compare the open document with another one
// (a template, an earlier version); it starts on the document's other
// version when pakton knows one (its family), else on no choice.
function compareForm(doc) {
  const others = (state.docs || []).filter((d) => d.id !== doc.id);
  const versions = new Set(((doc.details || {}).duplicates || []).map((d) => d.id));
  const sel = el('select', { id: 'compare-against', 'aria-label': 'Compare with' },
    el('option', { value: '' }, versions.size ? '' : 'Choose a document…'),
    ...others.filter((d) => versions.has(d.id)).map((d) => el('option', { value: d.id }, docLabel(d.display, d.name) + ' — other version')),
    ...others.filter((d) => !versions.has(d.id)).map((d) => el('option', { value: d.id }, docLabel(d.display, d.name))));
  if (versions.size) sel.value = [...versions].find((id) => others.some((d) => d.id === id)) || '';
  if (sel.value) sel.firstChild.remove();
  return el('form', {
    className: 'compare-form',
    onsubmit: (e) => { e.preventDefault(); runCompare(doc.id, sel.value).catch(showError); },
  }, el('label', { for: 'compare-against' }, 'Compare with the template or version '), sel, ' ',
  el('button', { type: 'submit' }, 'Compare'));
}

// ---- comparison ----

// runCompare shows the comparison of a contract with a template (or
// another version) side by side, over the main width: the template's
// clause on the left, the contract's on the right, removed words struck
// through, inserted words marked, substantive edits flagged; missing and
// added clauses where they sit. The redline (.docx) downloads from it.
async function runCompare(contract, against) {
  if (!against) return;
  const q = '/compare?contract=' + encodeURIComponent(contract) + '&against=' + encodeURIComponent(against);
  const r = await api('GET', coll() + q);
  const out = $('compare');
  // Each side named as people name the contract, its file after it.
  const named = (side, id) => {
    const d = (state.docs || []).find((x) => x.id === ((side && side.id) || id));
    return docLabel(d && d.display, (side && side.name) || (d && d.name) || id);
  };
  const cname = named(r.contract, contract);
  const tname = named(r.against, against);
  const open = (id, c, label) => el('button', {
    type: 'button', className: 'linkish clause-link',
    onclick: () => { closeCompare(); showSource({ doc_id: id, span: c.span }, label).catch(showError); },
  }, clauseName(c));
  // One side of a changed clause: the kept words and that side's edits.
  const sideText = (diff, keep) => el('p', { className: 'word-diff' }, ...diff.filter((op) => op.op === '=' || op.op === keep)
    .map((op) => (op.op === '-' ? el('del', {}, op.text) : op.op === '+' ? el('ins', {}, op.text) : el('span', {}, elideText(op.text, 320))))
    .flatMap((n, i) => (i ? [' ', n] : [n])));
  const substantive = r.changed.filter((ch) => (ch.substantive || []).length).length;
  // Rows in reading order: changed and missing by the template's order,
  // added ones before the first changed clause that comes after them in
  // the contract.
  const rows = [
    ...r.changed.map((ch) => ({ kind: 'changed', ch, t: ch.template.span.start, c: ch.contract.span.start })),
    ...r.missing.map((m) => ({ kind: 'missing', m, t: m.span.start })),
  ].sort((x, y) => x.t - y.t);
  let at = -1;
  for (const row of rows) { if (row.c != null) at = row.c; else row.c = at; }
  for (const a of r.added) {
    const i = rows.findIndex((row) => row.kind === 'changed' && row.c > a.span.start);
    rows.splice(i < 0 ? rows.length : i, 0, { kind: 'added', a, c: a.span.start });
  }
  const [left, right] = ['Template: ' + tname, 'Contract: ' + cname];
  const cell = (side, ...kids) => el('td', { 'data-side': side }, ...kids);
  const body = rows.map((row) => {
    if (row.kind === 'changed') {
      const ch = row.ch;
      const flag = (ch.substantive || []).length
        ? el('p', { className: 'substantive' }, 'Substantive: ' + ch.substantive.join('; '))
        : el('p', { className: 'hint' }, 'Wording');
      return el('tr', { className: 'cmp-changed' + ((ch.substantive || []).length ? ' cmp-substantive' : '') },
        cell(left, open(r.against.id, ch.template, 'Template: ' + tname), sideText(ch.diff, '-')),
        cell(right, open(r.contract.id, ch.contract, 'Changed in ' + cname),
          el('span', { className: 'hint' }, ' ' + percent(ch.similarity, true) + ' similar' + (ch.moved ? ', moved' : '')),
          sideText(ch.diff, '+'), flag));
    }
    if (row.kind === 'missing') {
      return el('tr', { className: 'cmp-missing' },
        cell(left, open(r.against.id, row.m, 'Missing from ' + cname), el('p', { className: 'word-diff' }, el('del', {}, preview(row.m.text, 600)))),
        cell(right, el('p', { className: 'cmp-none' }, 'Missing from ' + cname)));
    }
    return el('tr', { className: 'cmp-added' },
      cell(left, el('p', { className: 'cmp-none' }, 'Not in ' + tname)),
      cell(right, open(r.contract.id, row.a, 'Added in ' + cname), el('p', { className: 'word-diff' }, el('ins', {}, preview(row.a.text, 600)))));
  });
  const redline = el('button', { type: 'button', className: 'primary', onclick: () => downloadRedline(q) }, 'Download redline (.docx)');
  out.replaceChildren(
    el('div', { className: 'cmp-head' },
      el('h2', { id: 'compare-h' }, 'Comparison'),
      redline,
      el('button', { type: 'button', className: 'tool', onclick: closeCompare }, 'Close')),
    el('p', {}, cname + ' against ' + tname + ': ' + r.same + ' clauses the same, ' + r.changed.length + ' changed (' + substantive + ' substantive), ' +
      r.missing.length + ' missing, ' + r.added.length + ' added (' + percent(r.similarity, r.changed.length + r.missing.length + r.added.length > 0) + ' of the template’s words kept).'),
    rows.length
      ? el('table', { className: 'cmp-table' },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, left), el('th', { scope: 'col' }, right))),
        el('tbody', {}, ...body))
      : el('p', {}, 'The two have the same words.'),
  );
  out.hidden = false;
  document.querySelector('main.layout').classList.add('comparing');
  out.scrollIntoView({ block: 'start' });
}

// closeCompare gives the width back to the questions and the document.
function closeCompare() {
  $('compare').hidden = true;
  document.querySelector('main.layout').classList.remove('comparing');
}

// downloadRedline saves the comparison as a Word redline (with the key,
// so not a plain link).
async function downloadRedline(q) {
  try {
    const res = await fetch(API + coll() + q + '&format=docx', { headers: headers() });
    if (!res.ok) throw await errorOf(res);
    const url = URL.createObjectURL(await res.blob());
    const a = el('a', { href: url, download: exportName(res.headers.get('Content-Disposition')) || 'redline.docx' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) { showError(err); }
}

// clauseName names a clause of a comparison as the CLI does: its path and
// heading, or the paragraphs added or missing inside a clause.
function clauseName(c) {
  const where = c.path || 'the opening';
  if (c.paragraphs) return 'paragraphs' + (c.heading ? ' ' + c.heading : '') + ' in ' + where;
  return where + (c.heading && !where.includes(c.heading) ? ' ' + c.heading : '') + (c.clauses > 1 ? ' (' + c.clauses + ' clauses)' : '');
}

// percent writes a similarity as compare.Percent does: never 100% for
// texts that differ.
const percent = (x, changed) => { let p = Math.floor(100 * x + 1e-9); if (changed && p >= 100) p = 99; return p + '%'; };

const preview = (s, n = 140) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) + '…' : s; };
const elideText = (s, n = 80) => (s.length > n ? s.slice(0, n / 2 - 2) + ' … ' + s.slice(2 - n / 2) : s);

// ---- review: one row per family ----

// reviewFamilyRows keeps, of the grid's rows (indexes into t.rows), one
// per family — its primary copy, or the first of its copies reviewed — and
// the other copies of the families the user opened, under their primary.
function reviewFamilyRows(t, rows) {
  const fams = rv.families || [];
  if (!fams.length) return rows;
  const famOf = new Map();
  for (const f of fams) for (const m of f.members || []) famOf.set(m.id, f);
  const shown = new Set(rows.map((i) => t.rows[i].doc_id));
  // The row that stands for each family: its primary copy when reviewed.
  const lead = new Map();
  for (const i of rows) {
    const f = famOf.get(t.rows[i].doc_id);
    if (!f) continue;
    const cur = lead.get(f.id);
    if (cur === undefined || t.rows[i].doc_id === f.primary || (t.rows[cur].doc_id !== f.primary && !shown.has(f.primary) && i < cur)) lead.set(f.id, i);
  }
  rv.openFamilies = rv.openFamilies || new Set();
  rv.familyLead = new Map([...lead].map(([id, i]) => [t.rows[i].doc_id, famOf.get(t.rows[i].doc_id)]));
  const out = [];
  for (const i of rows) {
    const f = famOf.get(t.rows[i].doc_id);
    if (!f) { out.push(i); continue; }
    if (lead.get(f.id) !== i) continue;
    out.push(i);
    if (rv.openFamilies.has(f.id)) {
      for (const j of rows) if (j !== i && famOf.get(t.rows[j].doc_id) === f) out.push(j);
    }
  }
  return out;
}

// reviewFamilyBadge is the "+N copies" toggle of a family's row.
function reviewFamilyBadge(row) {
  const f = rv.familyLead && rv.familyLead.get(row.doc_id);
  if (!f) return null;
  const n = (f.members || []).length - 1;
  const open = rv.openFamilies && rv.openFamilies.has(f.id);
  return el('button', {
    type: 'button', className: 'linkish family-toggle', 'aria-expanded': open ? 'true' : 'false',
    title: 'Other files of the same contract: ' + f.members.filter((m) => m.id !== row.doc_id).map((m) => m.name).join(', '),
    onclick: (e) => {
      e.stopPropagation();
      rv.openFamilies = rv.openFamilies || new Set();
      if (open) rv.openFamilies.delete(f.id); else rv.openFamilies.add(f.id);
      renderGrid();
    },
  }, open ? ' − hide copies' : ' +' + n + ' ' + (n === 1 ? 'copy' : 'copies'));
}
