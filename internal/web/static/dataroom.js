// pakton web app: data rooms — a document's details (format, folder,
// archive, OCR confidence, e-mail and attachments, the same contract in
// other files), families in the document list, folders, and the
// clause-by-clause comparison of two documents.
'use strict';

// ---- families and folders in the document list ----

// loadFamilies fetches the collection's families; the list then shows one
// row per family with its other members one click away.
async function loadFamilies() {
  state.families = [];
  try {
    state.families = listOf(await api('GET', coll() + '/families'), 'families');
  } catch (_) { /* an older server: no families, one row per document */ }
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
// (a template, an earlier version).
function compareForm(doc) {
  const sel = el('select', { id: 'compare-against', 'aria-label': 'Compare with' },
    ...(state.docs || []).filter((d) => d.id !== doc.id).map((d) => el('option', { value: d.id }, d.name)));
  return el('form', {
    className: 'compare-form',
    onsubmit: (e) => { e.preventDefault(); runCompare(doc.id, sel.value).catch(showError); },
  }, el('label', { for: 'compare-against' }, 'Compare with the template or version '), sel, ' ',
  el('button', { type: 'submit' }, 'Compare'));
}

// ---- comparison ----

async function runCompare(contract, against) {
  if (!against) return;
  const r = await api('GET', coll() + '/compare?contract=' + encodeURIComponent(contract) + '&against=' + encodeURIComponent(against));
  const out = $('compare');
  const cname = (r.contract && r.contract.name) || contract;
  const tname = (r.against && r.against.name) || against;
  const open = (id, c, label) => el('button', {
    type: 'button', className: 'linkish clause-link',
    onclick: () => showSource({ doc_id: id, span: c.span }, label).catch(showError),
  }, clauseName(c));
  const words = (diff) => el('p', { className: 'word-diff' }, ...diff.map((op) =>
    op.op === '-' ? el('del', {}, op.text) : op.op === '+' ? el('ins', {}, op.text) : el('span', {}, elideText(op.text))).flatMap((n, i) => (i ? [' ', n] : [n])));
  const section = (title, items, render) => items.length
    ? [el('h3', {}, title + ' (' + items.length + ')'), el('ul', { className: 'compare-list' }, ...items.map((x) => el('li', {}, ...render(x))))]
    : [];
  out.replaceChildren(
    el('h2', {}, 'Comparison'),
    el('p', {}, cname + ' against ' + tname + ': ' + r.same + ' clauses the same, ' + r.changed.length + ' changed, ' +
      r.missing.length + ' missing, ' + r.added.length + ' added (' + percent(r.similarity, r.similarity < 1) + ' of the template’s words kept).'),
    ...section('Missing — in ' + tname + ', not in ' + cname, r.missing, (c) => [open(r.against.id, c, 'Missing from ' + cname), el('span', { className: 'hint' }, ' ' + preview(c.text))]),
    ...section('Changed', r.changed, (ch) => [open(r.against.id, ch.template, 'Template: ' + tname), ' → ', open(r.contract.id, ch.contract, 'Changed in ' + cname),
      el('span', { className: 'hint' }, ' ' + percent(ch.similarity, true) + ' similar' + (ch.moved ? ', moved' : '')),
      ...((ch.substantive || []).length ? [' ', el('strong', { className: 'substantive' }, 'Substantive: ' + ch.substantive.join('; '))] : []),
      words(ch.diff)]),
    ...section('Added — in ' + cname + ', not in ' + tname, r.added, (c) => [open(r.contract.id, c, 'Added in ' + cname), el('span', { className: 'hint' }, ' ' + preview(c.text))]),
  );
  out.hidden = false;
  out.scrollIntoView({ block: 'start' });
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

const preview = (s) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > 140 ? s.slice(0, 140) + '…' : s; };
const elideText = (s) => (s.length > 80 ? s.slice(0, 38) + ' … ' + s.slice(-38) : s);

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
