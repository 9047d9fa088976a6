// pakton web app: the report, its citations and sources.
'use strict';

// withCitations renders prose with each [n] (or [n, m]) as buttons that
// show source n.
function withCitations(text, rep) {
  const p = el('p');
  const re = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
  let last = 0, m;
  while ((m = re.exec(text))) {
    p.append(text.slice(last, m.index));
    for (const n of m[1].split(',').map((s) => parseInt(s, 10))) p.append(citeButton(n, rep));
    last = re.lastIndex;
  }
  p.append(text.slice(last));
  return p;
}

function citeButton(n, rep) {
  const src = (rep.sources || []).find((s) => s.n === n);
  if (!src) return el('span', { className: 'cite dangling', title: 'no source ' + n }, '[' + n + '?]');
  const external = !src.doc_id;
  return el('button', {
    type: 'button', className: 'cite', 'data-n': n,
    title: external ? src.url || src.tool || 'external source' : docLabel(src.doc_title, src.doc_name) + (src.path ? ' — ' + src.path : ''),
    'aria-label': 'Source ' + n + (src.doc_name ? ', ' + docLabel(src.doc_title, src.doc_name) : '') + (src.path ? ', ' + src.path : ''),
    onclick: () => (external ? document.getElementById('source-' + n).scrollIntoView({ block: 'nearest' })
      : showSource(src, 'Source [' + n + ']').catch(showError)),
  }, '[' + n + ']');
}

function paragraphs(text, rep) {
  return String(text || '').split(/\n{2,}/).map((t) => t.trim()).filter(Boolean).map((t) => withCitations(t, rep));
}

function renderReport(rep) {
  const out = $('report');
  const sections = [
    ['Summary of topic', rep.summary],
    ['Legal reasoning & analysis', rep.reasoning],
    ['Preliminary answer & direction for further research', rep.answer],
    ['Gaps & next questions', rep.gaps],
  ];
  const parts = [el('h2', { id: 'report-title' }, rep.title || 'Report')];
  if (rep.mode === 'evidence') parts.push(el('p', { className: 'mode' }, 'Evidence report — no language model'));
  // The notice is one line, opened on demand: the report's first screen is
  // the report.
  if (rep.notice) {
    parts.push(el('details', { className: 'notice' },
      el('summary', {}, 'Quoted, not interpreted: no language model is configured'), el('p', {}, rep.notice)));
  }
  if ((rep.flags || []).length) {
    parts.push(el('ul', { className: 'flags', 'aria-label': 'Warnings' }, rep.flags.map((f) => el('li', {}, f))));
  }
  for (const [h, text] of sections) {
    if (text && text.trim()) parts.push(el('section', {}, el('h3', {}, h), paragraphs(text, rep)));
  }
  if ((rep.checks || []).length) {
    // Found (with where, clickable) or not found, per contract and provision.
    parts.push(el('section', { className: 'checks' }, el('h3', {}, 'Provision check'),
      el('ul', {}, rep.checks.map((c) => {
        const conf = ' (confidence ' + Number(c.confidence).toFixed(2) + ', ' + c.method + ')';
        if (!c.found) {
          return el('li', { className: 'check-missing' }, el('strong', {}, c.provision), ' — not found in ' + docLabel(c.doc_title, c.doc_name) + conf);
        }
        const where = c.path || 'the text';
        const link = c.span ? el('button', { type: 'button', className: 'linklike',
          onclick: () => showSource({ doc_id: c.doc_id, doc_name: c.doc_name, path: c.path, span: c.span }, c.provision).catch(showError) }, where) : where;
        return el('li', { className: 'check-found' }, el('strong', {}, c.provision), ' — found in ' + docLabel(c.doc_title, c.doc_name) + ' at ', link, conf);
      }))));
  }
  if (rep.deal_room) parts.push(renderContracts(rep));
  const sources = rep.sources || [];
  parts.push(el('section', { className: 'sources' },
    el('h3', {}, 'Sources'),
    sources.length ? el('ol', { className: 'source-list' }, sources.map((s) => renderSource(s, rep)))
      : el('p', { className: 'hint' }, 'No provision was cited.')));
  if ((rep.removed || []).length) {
    parts.push(el('section', { className: 'removed' }, el('h3', {}, 'Removed quotations'),
      el('p', { className: 'hint' }, 'These quotations were not found in the documents they named.'),
      el('ul', {}, rep.removed.map((s) => el('li', {}, '[' + s.n + '] ' + docLabel(s.doc_title, s.doc_name) + ': “' + (s.quote || '') + '”')))));
  }
  const v = rep.verification;
  if (v && v.quotes) {
    parts.push(el('p', { className: 'hint' }, v.quotes + ' quotations checked against the documents: ' +
      v.verified + ' verified, ' + v.recited + ' re-cited, ' + v.removed + ' removed.'));
  }
  out.replaceChildren(...parts);
  out.hidden = false;
  // A report gets the width to be read in (app.css: .layout.reporting).
  document.querySelector('main.layout').classList.add('reporting');
  // The report may land below earlier results: bring its top into view.
  reveal(out);
}

function renderSource(s, rep) {
  const where = s.doc_id ? [docLabel(s.doc_title, s.doc_name) || s.doc_id, s.path, pagesLabel(s.pages, s.page_labels)]
    : [s.tool, s.url];
  const li = el('li', { id: 'source-' + s.n, className: 'source status-' + (s.status || 'unchecked') },
    el('div', { className: 'source-head' },
      citeButton(s.n, rep),
      el('span', { className: 'source-where' }, where.filter(Boolean).join(' — ')),
      el('span', { className: 'badge' }, s.status || 'unchecked')),
    el('blockquote', {}, s.quote || ''));
  if (s.note) li.append(el('p', { className: 'hint' }, s.note));
  const hl = (s.highlights || []).filter((h) => h.span);
  if (hl.length && s.doc_id) {
    li.append(el('p', { className: 'highlights-h', id: 'hl-' + s.n }, 'Sentences closest to the question'));
    li.append(el('ul', { className: 'highlights', 'aria-labelledby': 'hl-' + s.n }, hl.map((h) =>
      el('li', {}, el('button', {
        type: 'button', className: 'linkish',
        onclick: () => showSource({ doc_id: s.doc_id, span: h.span }, 'Sentence of source [' + s.n + ']').catch(showError),
      }, h.text)))));
  }
  renderLeansOn(li, s); // graph.js: the definitions and clauses the provision leans on
  return li;
}

// renderContracts renders a question about several contracts answered per
// contract: the contracts that have what it asks about, each with its
// answer and the clause it was read from (click: the clause in the
// contract), the others counted and listed, and a way to the review grid.
function renderContracts(rep) {
  const dr = rep.deal_room;
  const rows = rep.contracts || [];
  const what = dr.method === 'review'
    ? dr.provision + (dr.condition ? ' (' + dr.condition + ')' : '')
    : 'a passage matching the question';
  const counts = [rows.length + ' of ' + dr.checked + ' contracts have ' + what];
  if (dr.not_matching) counts.push(dr.not_matching + ' have it but not as asked');
  if (dr.lacking) counts.push(dr.lacking + ' lack it');
  if (dr.undecided) counts.push(dr.undecided + ' could not be decided');
  const list = el('ul', { className: 'contracts' }, rows.map((c) => {
    const cite = (c.citations || [])[0];
    const where = cite ? el('button', {
      type: 'button', className: 'linklike',
      onclick: () => showSource({ doc_id: c.doc_id, doc_name: c.name, path: cite.path, span: cite.span, pages: cite.pages }, c.name).catch(showError),
    }, [cite.path || 'the clause', pagesLabel(cite.pages)].filter(Boolean).join(' — ')) : null;
    return el('li', { className: 'contract' },
      el('span', { className: 'contract-name' }, docLabel(c.doc_title, c.name)),
      dr.method === 'review' ? el('strong', { className: 'contract-answer' }, c.answer || '—') : null,
      c.condition ? el('span', { className: 'contract-condition' }, ' — ' + c.condition) : null,
      dr.ask ? el('span', { className: 'contract-asked' }, ' — ' + dr.ask + ': ' + (c.asked || 'not stated') + (c.asked_from ? ' (' + c.asked_from + ')' : '')) : null,
      where ? el('span', { className: 'contract-where' }, ' ', where) : null);
  }));
  const others = dr.others || [];
  const why = { lacks: 'lacks it', not_matching: 'has it, not as asked', undecided: 'could not be decided' };
  const section = el('section', { className: 'per-contract' },
    el('h3', {}, 'Per contract'),
    el('p', { className: 'hint' }, counts.join('; ') + '.'),
    rows.length ? list : el('p', {}, 'No contract has it.'));
  if (others.length) {
    section.append(el('details', {}, el('summary', {}, others.length === 1 ? 'The other contract' : 'The other ' + others.length + ' contracts'),
      el('ul', {}, others.map((o) => el('li', {}, docLabel(o.doc_title, o.name) + ' — ' + (why[o.status] || o.status) +
        (o.value ? ' (' + o.value + ')' : '') + (o.why ? ': ' + o.why : ''))))));
  }
  if (dr.method === 'review') {
    section.append(el('button', { type: 'button', className: 'linkish', onclick: () => openLatestReview().catch(showError) },
      'Open the review grid'));
  }
  return section;
}

// openLatestReview switches to the Review tab and opens the collection's
// latest finished review, where every contract × provision can be checked.
async function openLatestReview() {
  setTab('review');
  await loadReviewList();
  const done = (rv.list || []).find((x) => x.state === 'done');
  if (done) {
    $('review-pick').value = done.id;
    await openReview(done.id);
  }
}
