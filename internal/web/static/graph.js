// pakton web app: the clause panel beside the document — the definitions
// and cross-references of the selected clause (GET …/documents/{id}/graph,
// docs/GRAPH.md). Every entry is a link: a term opens its definition, a
// reference the clause it points to, a "referred to by" entry the clause
// that cites this one.
'use strict';

const graphCache = new Map(); // collection/id -> graph, or a promise of it

// fetchGraph returns the open document's graph, fetched once per document.
function fetchGraph(doc) {
  const key = state.collection + '/' + doc.id;
  if (!graphCache.has(key)) {
    const p = api('GET', doc.base + '/graph').catch((err) => { graphCache.delete(key); throw err; });
    graphCache.set(key, p);
  }
  return graphCache.get(key);
}

// nodeOfSpan is the deepest clause whose span holds all of span.
function nodeOfSpan(doc, span) {
  let cur = doc.nodes.find((n) => n.parent === -1) || doc.nodes[0];
  for (;;) {
    const next = (cur.children || []).map((c) => doc.byId.get(c))
      .find((c) => c && c.span.start <= span.start && Math.max(span.end, span.start + 1) <= c.span.end);
    if (!next) return cur;
    cur = next;
  }
}

// nodePath names a clause by its labels from the top ("4.3 > (b)"), its
// own title when it has no label.
function nodePath(doc, n) {
  const parts = [];
  for (let c = n; c && c.parent !== -1; c = doc.byId.get(c.parent)) parts.unshift(c.label || nodeTitle(doc, c));
  return parts.join(' > ');
}

// inClause reports whether node id lies in the subtree of clause c.
function inClause(doc, id, c) {
  for (let n = doc.byId.get(id); n; n = doc.byId.get(n.parent)) {
    if (n.id === c.id) return true;
    if (n.parent === -1) break;
  }
  return false;
}

// showClauseGraph fills the panel for the clause holding span. It is
// called by highlight() whenever the document view selects a span.
async function showClauseGraph(span) {
  const doc = state.doc;
  const panel = $('graph-panel');
  if (!doc || !panel) return;
  const clause = nodeOfSpan(doc, span);
  let g;
  try {
    g = await fetchGraph(doc);
  } catch (err) {
    panel.hidden = false;
    $('graph-body').replaceChildren(el('p', { className: 'hint' }, 'Definitions and references are not available: ' + err.message));
    return;
  }
  if (state.doc !== doc) return; // another document was opened meanwhile
  renderClauseGraph(doc, g, clause);
}

function renderClauseGraph(doc, g, clause) {
  const root = clause.parent === -1;
  const title = root ? doc.name : nodeTitle(doc, clause);
  $('graph-h').textContent = 'In ' + title;
  const defs = (g.definitions || []).filter((d) => inClause(doc, d.node, clause));
  const terms = new Map(); // term index -> count
  for (const u of g.uses || []) {
    if (inClause(doc, u.node, clause)) terms.set(u.term, (terms.get(u.term) || 0) + u.count);
  }
  // References out of the clause (not "this Section 4.3" inside 4.3).
  const refs = (g.references || []).filter((r) => inClause(doc, r.node, clause) && !(r.target >= 0 && inClause(doc, r.target, clause)));
  const citedBy = root ? [] : (g.references || []).filter((r) => r.target === clause.id && !inClause(doc, r.node, clause));

  const parts = [];
  if (defs.length) {
    parts.push(section('Defined here', defs.map((d) => link(d.term, d.kind === 'party' ? 'party name' : '',
      () => showDefinition(d), 'Show the definition of “' + d.term + '”'))));
  }
  // Where the terms defined here are used (at most 12 clauses each).
  for (const d of defs) {
    const ti = (g.terms || []).findIndex((t) => t.term === d.term);
    const at = (g.uses || []).filter((u) => u.term === ti && !inClause(doc, u.node, clause));
    if (!at.length) continue;
    const items = at.slice(0, 12).map((u) => {
      const n = doc.byId.get(u.node);
      return link(n ? nodePath(doc, n) : 'clause ' + u.node, u.count > 1 ? u.count + '×' : '', () => showNode(u.node), 'Show this use');
    });
    if (at.length > 12) items.push(el('span', { className: 'graph-note' }, '… and ' + (at.length - 12) + ' more clauses'));
    parts.push(section('“' + d.term + '” is used in', items));
  }
  const used = [...terms.entries()]
    .map(([i, n]) => ({ term: (g.terms[i] || {}).term, n }))
    .filter((t) => t.term && !defs.some((d) => d.term === t.term))
    .sort((a, b) => a.term.localeCompare(b.term));
  if (used.length) {
    parts.push(section('Terms used', used.map((t) => {
      const def = (g.definitions || []).find((d) => d.term === t.term);
      return link(t.term, t.n > 1 ? t.n + '×' : '', def ? () => showDefinition(def) : null, 'Show the definition of “' + t.term + '”');
    })));
  }
  if (refs.length) {
    parts.push(section('Refers to', refs.map((r) => {
      switch (r.status) {
        case 'external': return link(r.text, 'in ' + r.external, null, '');
        case 'unresolved': return link(r.text, 'not found in this document', null, '');
        default: return link(r.text, '→ ' + r.target_path + (r.status === 'within' ? ' (within)' : ''),
          () => showNode(r.target), 'Show ' + r.target_path);
      }
    })));
  }
  if (citedBy.length) {
    parts.push(section('Referred to by', citedBy.map((r) => link(r.path || doc.name, '“' + r.text + '”',
      () => { highlight(r.span, 'clause', 'Reference in ' + (r.path || doc.name)); markOutline(r.node); },
      'Show where ' + (r.path || doc.name) + ' refers to this clause'))));
  }
  if (!parts.length) parts.push(el('p', { className: 'hint' }, 'No definitions or cross-references in this clause.'));
  $('graph-body').replaceChildren(...parts);
  const opened = $('graph-panel').hidden;
  $('graph-panel').hidden = false;
  $('graph-panel').closest('.doc-body').classList.add('with-graph');
  if (opened) {
    // The text column just narrowed and its lines reflowed: bring the
    // highlight back into view.
    const pre = $('doc-text'), mark = pre.querySelector('mark');
    if (mark) pre.scrollTop = Math.max(0, mark.offsetTop - pre.offsetTop - pre.clientHeight / 4);
  }
}

function section(title, items) {
  return el('div', { className: 'graph-sec' }, el('h4', {}, title), el('ul', {}, ...items.map((i) => el('li', {}, i))));
}

// link is one entry: a button when it leads somewhere, plain text when not
// (an external or unresolved reference), with a muted note.
function link(text, note, go, title) {
  const noteEl = note ? el('span', { className: 'graph-note' }, ' ' + note) : '';
  if (!go) return el('span', { className: 'graph-item' }, text, noteEl);
  return el('span', { className: 'graph-item' }, el('button', { type: 'button', className: 'graph-link', title, onclick: go }, text), noteEl);
}

function showDefinition(d) {
  highlight(d.span, 'def', 'Definition of “' + d.term + '”');
  markOutline(d.node);
}

function showNode(id) {
  const n = state.doc && state.doc.byId.get(id);
  if (!n) return;
  highlight(n.span, 'clause', 'Clause ' + nodeTitle(state.doc, n));
  markOutline(id);
}

// hideClauseGraph empties the panel when no document is open.
function hideClauseGraph() {
  const panel = $('graph-panel');
  if (!panel) return;
  panel.hidden = true;
  $('graph-body').replaceChildren();
  panel.closest('.doc-body').classList.remove('with-graph');
}

// renderLeansOn lists, under a source of an evidence report, the
// definitions and clauses the provision leans on; each opens its span.
function renderLeansOn(li, s) {
  const on = s.leans_on || [];
  if (!on.length || !s.doc_id) return;
  li.append(el('p', { className: 'highlights-h', id: 'lo-' + s.n }, 'Leans on'));
  li.append(el('ul', { className: 'highlights leans-on', 'aria-labelledby': 'lo-' + s.n }, on.map((l) => {
    const what = l.kind === 'definition' ? 'Definition of “' + l.label + '”' : l.label;
    if (!l.span) return el('li', {}, what + ' — ' + (l.note || ''));
    return el('li', {}, el('button', {
      type: 'button', className: 'linkish',
      onclick: () => showSource({ doc_id: s.doc_id, span: l.span }, what + ' (leaned on by source [' + s.n + '])').catch(showError),
    }, what), el('span', { className: 'graph-note' }, ' ' + (l.path || '')));
  })));
}
