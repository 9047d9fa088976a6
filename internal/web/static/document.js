// pakton web app: the open document: text view, clause tree, highlights.
'use strict';

const docCache = new Map(); // collection/id -> document

async function fetchDocument(id) {
  const key = state.collection + '/' + id;
  if (docCache.has(key)) return docCache.get(key);
  const r = await api('GET', coll() + '/documents/' + encodeURIComponent(id));
  const d = r.document && typeof r.document === 'object' ? Object.assign({}, r, r.document) : r;
  const text = typeof d.text === 'string' ? d.text : '';
  const nodes = listOf(d.tree || d.nodes, 'nodes');
  const cp = cpIndex(text);
  const doc = {
    id: d.id || id, name: d.name || id, display: d.display || (r.details && r.details.display) || '', format: d.format,
    folder: d.folder || '', archive: d.archive || '', entry: d.entry || '', details: r.details || {},
    // The page map: physical pages with their code-point spans (the
    // document's summary carries only the page count under the same name).
    pages: Array.isArray(r.pages) ? r.pages : Array.isArray(d.pages) ? d.pages : d.pages,
    text, cp, nodes, byId: new Map(nodes.map((n) => [n.id, n])),
    ...readingOf(r, text, cp), // paragraphs and furniture of the text view (reader.js)
    base: coll() + '/documents/' + encodeURIComponent(d.id || id),
    layout: undefined, // fetched by fetchLayout: null when the document has none
    pageURLs: new Map(), // page number -> object URL of its image
  };
  docCache.set(key, doc);
  return doc;
}

async function openDocument(id) {
  if (state.doc && state.doc.id === id) return state.doc;
  const doc = await fetchDocument(id);
  await fetchLayout(doc);
  state.doc = doc;
  state.sel = null;
  // The contract as people name it; its file name leads the facts below.
  const titled = doc.display && doc.display !== doc.name;
  $('doc-title').textContent = titled ? doc.display : doc.name;
  $('doc-section').classList.add('open');
  document.querySelector('main.layout').classList.add('doc-open');
  const facts = [titled ? doc.name : '', doc.format, (doc.cp.length - 1).toLocaleString() + ' characters'];
  if (Array.isArray(doc.pages) && doc.pages.length) facts.push(doc.pages.length + ' pages');
  else if (typeof doc.pages === 'number' && doc.pages) facts.push(doc.pages + ' pages');
  if (doc.folder) facts.push(doc.folder);
  $('doc-meta').textContent = facts.filter(Boolean).join(' · ');
  $('doc-selection').textContent = '';
  $('details-toggle').hidden = false;
  $('doc-remove').hidden = false;
  if (!$('details-panel').hidden) renderDetails(doc);
  renderText(doc, null);
  $('doc-text').scrollTop = 0;
  hideClauseGraph();
  applyView();
  renderOutline(doc);
  for (const cb of [$('ask-scope'), $('search-scope')]) cb.disabled = false;
  $('ask-scope').parentElement.title = 'Ask about ' + doc.name + ' only';
  renderDocuments();
  return doc;
}

function closeDocument() {
  state.doc = null;
  $('doc-title').textContent = 'No document open';
  $('doc-section').classList.remove('open');
  document.querySelector('main.layout').classList.remove('doc-open');
  $('doc-meta').textContent = 'Pick a document, a search hit or a citation.';
  $('doc-selection').textContent = '';
  $('details-toggle').hidden = true;
  $('doc-remove').hidden = true;
  $('details-panel').hidden = true;
  $('doc-text').replaceChildren();
  state.sel = null;
  applyView();
  $('outline').replaceChildren();
  hideClauseGraph();
  for (const cb of [$('ask-scope'), $('search-scope')]) { cb.checked = false; cb.disabled = true; }
}

// ---- clause tree ----

function nodeTitle(doc, n) {
  const head = [n.label, n.heading || (n.term ? '“' + n.term + '”' : '')].filter(Boolean).join(' ');
  if (head) return head;
  const own = n.own || n.span;
  const { from, to } = slice(doc, { start: own.start, end: Math.min(own.end, own.start + 60) });
  const words = doc.text.slice(from, to).replace(/\s+/g, ' ').trim();
  return words ? words + (own.end - own.start > 60 ? '…' : '') : n.kind;
}

function renderOutline(doc) {
  const nav = $('outline');
  const root = doc.nodes.find((n) => n.parent === -1) || doc.nodes[0];
  if (!root || !(root.children || []).length) {
    nav.replaceChildren(el('p', { className: 'hint' }, 'No clause structure found.'));
    return;
  }
  nav.replaceChildren(el('h3', { className: 'outline-h', id: 'outline-h' }, 'Clauses'), renderBranch(doc, root.children, 0));
  const first = nav.querySelector('.node');
  if (first) first.tabIndex = 0;
}

// outlineKeys moves through the clause tree with the keyboard: Up and Down
// to the previous and next visible clause, Right to expand, Left to
// collapse or go to the parent, Home and End; Enter or Space selects. Only
// one clause is in the Tab order at a time.
function outlineKeys(e) {
  const btn = e.target.closest('.node');
  if (!btn) return;
  const nodes = [...$('outline').querySelectorAll('.node')].filter((b) => b.offsetParent !== null);
  const i = nodes.indexOf(btn);
  const li = btn.closest('li');
  const twisty = li.querySelector(':scope > .tree-row > .twisty');
  const expanded = twisty && twisty.getAttribute('aria-expanded') === 'true';
  let next = null;
  switch (e.key) {
    case 'ArrowDown': next = nodes[i + 1]; break;
    case 'ArrowUp': next = nodes[i - 1]; break;
    case 'Home': next = nodes[0]; break;
    case 'End': next = nodes[nodes.length - 1]; break;
    case 'ArrowRight':
      if (twisty && !expanded) toggle(li, twisty, true);
      else next = nodes[i + 1];
      break;
    case 'ArrowLeft': {
      const parent = li.parentElement.closest('li');
      if (expanded) toggle(li, twisty, false);
      else if (parent) next = parent.querySelector(':scope > .tree-row > .node');
      break;
    }
    default: return;
  }
  e.preventDefault();
  if (next) next.focus();
}

function outlineFocus(e) {
  if (!e.target.classList.contains('node')) return;
  for (const b of $('outline').querySelectorAll('.node[tabindex="0"]')) b.tabIndex = -1;
  e.target.tabIndex = 0;
}

function renderBranch(doc, ids, depth) {
  const ul = el('ul', { className: 'tree', role: depth ? 'group' : null });
  for (const id of ids) {
    const n = doc.byId.get(id);
    if (!n) continue;
    const kids = n.children || [];
    const open = depth < 1;
    const li = el('li', { 'data-node': n.id });
    const row = el('div', { className: 'tree-row' });
    if (kids.length) {
      row.append(el('button', {
        type: 'button', className: 'twisty', 'aria-expanded': String(open), tabIndex: -1,
        'aria-label': (open ? 'Collapse ' : 'Expand ') + nodeTitle(doc, n),
        onclick: (e) => toggle(li, e.currentTarget),
      }));
    } else {
      row.append(el('span', { className: 'twisty-space' }));
    }
    row.append(el('button', {
      type: 'button', className: 'node kind-' + n.kind, 'data-node': n.id, tabIndex: -1,
      title: n.kind + ': ' + nodeTitle(doc, n), onclick: () => selectNode(n.id),
    }, nodeTitle(doc, n)));
    li.append(row);
    if (kids.length) {
      const sub = renderBranch(doc, kids, depth + 1);
      sub.hidden = !open;
      li.append(sub);
    }
    ul.append(li);
  }
  return ul;
}

function toggle(li, btn, force) {
  const sub = li.querySelector(':scope > ul');
  if (!sub) return;
  const open = force === undefined ? sub.hidden : force;
  sub.hidden = !open;
  btn.setAttribute('aria-expanded', String(open));
  btn.setAttribute('aria-label', (open ? 'Collapse ' : 'Expand ') + li.querySelector('.node').textContent);
}

function selectNode(id) {
  const doc = state.doc;
  const n = doc && doc.byId.get(id);
  if (!n) return;
  highlight(n.span, 'clause', 'Clause ' + nodeTitle(doc, n));
  markOutline(id);
}

// deepestAt returns the id of the deepest node whose span contains code
// point pos.
function deepestAt(doc, pos) {
  let cur = doc.nodes.find((n) => n.parent === -1) || doc.nodes[0];
  for (;;) {
    const next = (cur.children || []).map((c) => doc.byId.get(c))
      .find((c) => c && c.span.start <= pos && pos < c.span.end);
    if (!next) return cur.id;
    cur = next;
  }
}

// markOutline expands the outline down to node id and marks it current.
function markOutline(id) {
  const nav = $('outline');
  for (const b of nav.querySelectorAll('.node[aria-current]')) b.removeAttribute('aria-current');
  const li = nav.querySelector('li[data-node="' + id + '"]');
  if (!li) return;
  for (let p = li.parentElement.closest('li'); p; p = p.parentElement.closest('li')) {
    toggle(p, p.querySelector(':scope > .tree-row > .twisty'), true);
  }
  const btn = li.querySelector(':scope > .tree-row > .node');
  btn.setAttribute('aria-current', 'true');
  const nr = nav.getBoundingClientRect(), br = btn.getBoundingClientRect();
  if (br.top < nr.top || br.bottom > nr.bottom) nav.scrollTop += br.top - nr.top - nr.height / 3;
}

// ---- highlighting ----

// highlight shows span of the open document in the text view inside a
// <mark> (reader.js), scrolled into view; inner, when given, is a span
// inside it shown more strongly (a review cell's answer).
function highlight(span, kind, label, inner) {
  const doc = state.doc;
  state.sel = { span, kind, label, inner: inner || null };
  const mark = renderText(doc, state.sel);
  const pages = pagesOfSpan(doc, span);
  $('doc-selection').textContent = [label, pagesLabel(pages, pageLabelsOf(doc, pages)),
    'characters ' + span.start + '–' + span.end].filter(Boolean).join(' · ');
  // Scroll only the text pane, so the question and report stay in view.
  const pre = $('doc-text');
  const top = mark.offsetTop - pre.offsetTop;
  pre.scrollTop = Math.max(0, top - pre.clientHeight / 4);
  showClauseGraph(span); // graph.js: the clause's definitions and references
  if (showingPages()) return drawPageHighlight(true) || mark;
  return mark;
}

// pagesOfSpan returns the physical pages of the open document that span
// touches (none for formats without pages).
function pagesOfSpan(doc, span) {
  if (!Array.isArray(doc.pages)) return [];
  return doc.pages.filter((p) => p.span && p.span.start < Math.max(span.end, span.start + 1) && span.start < p.span.end)
    .map((p) => p.number);
}

// pageLabelsOf returns the printed numbers of the given pages ("" where a
// page shows none), or null when none of them has one.
function pageLabelsOf(doc, pages) {
  if (!Array.isArray(doc.pages)) return null;
  const labels = pages.map((n) => (doc.pages.find((p) => p.number === n) || {}).label || '');
  return labels.some(Boolean) ? labels : null;
}

// showSource opens a cited document and highlights the cited span (and
// src.inner inside it, when given).
async function showSource(src, label) {
  if (!src.doc_id) return;
  const from = document.activeElement;
  await openDocument(src.doc_id);
  const mark = highlight(src.span, 'cite', label, src.inner);
  markOutline(deepestAt(state.doc, src.span.start));
  mark.focus({ preventScroll: true });
  showDocPane(from);
}

// showDocPane brings the document view into the window when the highlight
// is not in it (in one column the document sits below the answers), and
// offers a way back to where the user clicked.
function showDocPane(from) {
  const target = (showingPages() && $('doc-pages').querySelector('.hl-box')) || $('doc-text').querySelector('mark') || $('doc-title');
  const r = target.getBoundingClientRect();
  if (r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0) return;
  state.returnTo = from && from !== document.body ? from : null;
  $('doc-back').hidden = !state.returnTo;
  $('doc-section').scrollIntoView({ block: 'start' });
}

// goBack returns from the document view to the hit, citation or document
// that opened it.
function goBack() {
  let to = state.returnTo;
  state.returnTo = null;
  $('doc-back').hidden = true;
  if (to && !to.isConnected && to.dataset.doc) to = $('doc-list').querySelector('[data-doc="' + CSS.escape(to.dataset.doc) + '"]');
  if (!to || !to.isConnected) return;
  to.scrollIntoView({ block: 'center' });
  to.focus({ preventScroll: true });
}
