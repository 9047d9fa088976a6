// pakton web app: a client of the JSON API under /api/v1.
//
// Contract text is hostile input: it is only ever put into the page as text
// nodes (textContent, document.createTextNode), never as markup.
//
// Spans from the API count Unicode code points of a document's canonical
// text; JavaScript strings count UTF-16 units. Each open document keeps a
// code point -> UTF-16 offset table (cpIndex) and every span goes through it.
'use strict';

const API = '/api/v1';
const KEY_STORE = 'pakton.key';
const COLLECTION_STORE = 'pakton.collection';

const state = {
  key: '',
  collection: '',
  docs: [],      // document list of the collection
  doc: null,     // the open document: {id, name, text, cp, nodes, byId}
  asking: null,  // AbortController of the running ask
  sel: null,     // the highlighted span of the open document: {span, kind, label}
  pageView: false, // show PDFs with a layout as page images (the user's choice)
  pageObserver: null, // IntersectionObserver loading page images lazily
};

const $ = (id) => document.getElementById(id);

// el builds an element. attrs sets properties (className, type, ...) and
// attributes (names with a dash, aria-*, data-*); children are nodes or
// strings (added as text, never parsed).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k.includes('-') || k === 'role') e.setAttribute(k, v === true ? '' : v);
    else e[k] = v;
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// ---- API key and requests ----

// takeKey moves #key=... from the address into sessionStorage, so the key
// is not left in the address bar, the history or a copied link.
function takeKey() {
  const params = new URLSearchParams(location.hash.slice(1));
  const k = params.get('key');
  if (k) {
    sessionStorage.setItem(KEY_STORE, k);
    params.delete('key');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
  }
  return sessionStorage.getItem(KEY_STORE) || '';
}

class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function headers(extra) {
  const h = Object.assign({}, extra);
  if (state.key) h.Authorization = 'Bearer ' + state.key;
  return h;
}

async function errorOf(res) {
  let msg = res.status + ' ' + res.statusText;
  try {
    const body = await res.text();
    try {
      const j = JSON.parse(body);
      const e = j.error;
      msg = (e && (e.message || (typeof e === 'string' ? e : ''))) || j.message || msg;
    } catch (_) {
      if (body.trim()) msg = body.trim().slice(0, 300);
    }
  } catch (_) { /* keep the status line */ }
  if (res.status === 401 || res.status === 403) needKey();
  return new APIError(res.status, msg);
}

async function api(method, path, body, signal) {
  const init = { method, headers: headers(), signal };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(API + path, init);
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return null;
  const type = res.headers.get('Content-Type') || '';
  return type.includes('json') ? res.json() : res.text();
}

const coll = () => '/collections/' + encodeURIComponent(state.collection);

// listOf finds the array in a list response: a bare array or the first
// array-valued field named in keys.
function listOf(r, ...keys) {
  if (Array.isArray(r)) return r;
  for (const k of keys) if (r && Array.isArray(r[k])) return r[k];
  return [];
}

function needKey() {
  $('key-form').hidden = false;
}

function showError(err) {
  const b = $('banner');
  if (!err) { b.hidden = true; b.textContent = ''; return; }
  if (err.name === 'AbortError') return;
  b.textContent = err.message || String(err);
  b.hidden = false;
}

// ---- collections ----

async function loadCollections() {
  let names = [];
  try {
    names = listOf(await api('GET', '/collections'), 'collections', 'items')
      .map((c) => (typeof c === 'string' ? c : c.name)).filter(Boolean);
  } catch (err) {
    showError(err);
  }
  const saved = sessionStorage.getItem(COLLECTION_STORE);
  if (!names.length) names = ['default'];
  const pick = names.includes(state.collection) ? state.collection
    : names.includes(saved) ? saved : names.includes('default') ? 'default' : names[0];
  const sel = $('collection-select');
  sel.replaceChildren(...names.map((n) => el('option', { value: n }, n)));
  sel.value = pick;
  await useCollection(pick);
}

async function useCollection(name) {
  state.collection = name;
  sessionStorage.setItem(COLLECTION_STORE, name);
  closeDocument();
  $('report').hidden = true;
  $('results').hidden = true;
  $('activity').hidden = true;
  await loadDocuments();
}

async function createCollection(ev) {
  ev.preventDefault();
  const input = $('collection-new');
  const name = input.value.trim();
  if (!name) { input.focus(); return; }
  try {
    await api('POST', '/collections', { name });
    input.value = '';
    state.collection = name;
    showError(null);
    await loadCollections();
  } catch (err) {
    showError(err);
  }
}

// ---- documents ----

async function loadDocuments() {
  try {
    state.docs = listOf(await api('GET', coll() + '/documents'), 'documents', 'items');
    showError(null);
  } catch (err) {
    state.docs = [];
    showError(err);
  }
  renderDocuments();
}

function renderDocuments() {
  const list = $('doc-list');
  $('doc-empty').hidden = state.docs.length > 0;
  $('doc-count').textContent = state.docs.length ? String(state.docs.length) : '';
  list.replaceChildren(...state.docs.map((d) => el('li', {},
    el('button', {
      type: 'button', className: 'doc-item', 'data-doc': d.id,
      'aria-current': state.doc && state.doc.id === d.id ? 'true' : null,
      onclick: () => openDocument(d.id).catch(showError),
    },
    el('span', { className: 'doc-name' }, d.name || d.id),
    el('span', { className: 'doc-facts' }, docFacts(d))),
  )));
}

function docFacts(d) {
  const parts = [];
  if (d.format) parts.push(d.format);
  if (d.pages) parts.push(d.pages + (d.pages === 1 ? ' page' : ' pages'));
  if (d.nodes) parts.push(d.nodes + ' clauses');
  if (d.runes) parts.push(Math.max(1, Math.round(d.runes / 1000)) + 'k chars');
  return parts.join(' · ');
}

// cpIndex returns, for text of n code points, an array of n+1 UTF-16
// offsets: the offset where code point i starts, and text.length last.
function cpIndex(text) {
  const out = new Uint32Array(text.length + 1);
  let n = 0;
  for (let i = 0; i < text.length; n++) {
    out[n] = i;
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
  }
  out[n] = text.length;
  return out.subarray(0, n + 1);
}

// slice returns the text of a code-point span of the open document.
function slice(doc, span) {
  const n = doc.cp.length - 1;
  const a = Math.max(0, Math.min(n, span.start | 0));
  const b = Math.max(a, Math.min(n, span.end | 0));
  return { from: doc.cp[a], to: doc.cp[b] };
}

const docCache = new Map(); // collection/id -> document

async function fetchDocument(id) {
  const key = state.collection + '/' + id;
  if (docCache.has(key)) return docCache.get(key);
  const r = await api('GET', coll() + '/documents/' + encodeURIComponent(id));
  const d = r.document && typeof r.document === 'object' ? Object.assign({}, r, r.document) : r;
  const text = typeof d.text === 'string' ? d.text : '';
  const nodes = listOf(d.tree || d.nodes, 'nodes');
  const doc = {
    id: d.id || id, name: d.name || id, format: d.format, pages: d.pages,
    text, cp: cpIndex(text), nodes, byId: new Map(nodes.map((n) => [n.id, n])),
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
  $('doc-title').textContent = doc.name;
  const facts = [doc.format, (doc.cp.length - 1).toLocaleString() + ' characters'];
  if (Array.isArray(doc.pages) && doc.pages.length) facts.push(doc.pages.length + ' pages');
  else if (typeof doc.pages === 'number' && doc.pages) facts.push(doc.pages + ' pages');
  $('doc-meta').textContent = facts.filter(Boolean).join(' · ');
  $('doc-selection').textContent = '';
  $('doc-text').replaceChildren(doc.text);
  $('doc-text').scrollTop = 0;
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
  $('doc-meta').textContent = 'Pick a document, a search hit or a citation.';
  $('doc-selection').textContent = '';
  $('doc-text').replaceChildren();
  state.sel = null;
  applyView();
  $('outline').replaceChildren();
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

// highlight shows span of the open document in the text view: the text is
// split into three text nodes, the middle one inside a <mark>, which is
// scrolled into view.
function highlight(span, kind, label) {
  const doc = state.doc;
  state.sel = { span, kind, label };
  const { from, to } = slice(doc, span);
  const mark = el('mark', { className: 'hl-' + kind, tabIndex: -1, 'data-start': span.start, 'data-end': span.end },
    doc.text.slice(from, to));
  $('doc-text').replaceChildren(doc.text.slice(0, from), mark, doc.text.slice(to));
  $('doc-selection').textContent = label + ' · characters ' + span.start + '–' + span.end;
  // Scroll only the text pane, so the question and report stay in view.
  const pre = $('doc-text');
  const top = mark.offsetTop - pre.offsetTop;
  pre.scrollTop = Math.max(0, top - pre.clientHeight / 4);
  if (showingPages()) return drawPageHighlight(true) || mark;
  return mark;
}

// ---- page view: PDFs with a layout ----
//
// GET …/layout gives each page's size in points and one box per text line
// with its code-point span: [start, end, x0, y0, x1, y1], from the top-left
// corner. A page is a box with the page's aspect ratio holding the page image
// (fetched when it scrolls near, with the API key, shown from an object
// URL); highlight boxes are placed over it in percentages of the page, so
// they follow the image at any width. A line only partly inside a span is
// cut in proportion to its code points.

const PAGE_SCALE = window.devicePixelRatio >= 2 ? 2.5 : 1.5;

async function fetchLayout(doc) {
  if (doc.layout !== undefined) return doc.layout;
  doc.layout = null;
  if (!/^pdf/.test(doc.format || '')) return null;
  try {
    const l = await api('GET', doc.base + '/layout');
    if (l && Array.isArray(l.pages) && l.pages.length) doc.layout = l;
  } catch (err) {
    if (err.status !== 404) showError(err);
  }
  return doc.layout;
}

function showingPages() {
  return !!(state.pageView && state.doc && state.doc.layout);
}

// applyView shows the open document as text or as pages, and the toggle
// when it has a layout.
function applyView() {
  const doc = state.doc;
  const pages = showingPages();
  $('view-toggle').hidden = !(doc && doc.layout);
  $('view-text').setAttribute('aria-pressed', String(!pages));
  $('view-page').setAttribute('aria-pressed', String(pages));
  $('doc-text').hidden = pages;
  $('doc-pages').hidden = !pages;
  if (!doc || !doc.layout) {
    if (state.pageObserver) state.pageObserver.disconnect();
    $('doc-pages').replaceChildren();
    delete $('doc-pages').dataset.doc;
    return;
  }
  if (pages) {
    renderPages(doc);
    drawPageHighlight(true);
  } else {
    const mark = $('doc-text').querySelector('mark');
    const pre = $('doc-text');
    if (mark) pre.scrollTop = Math.max(0, mark.offsetTop - pre.offsetTop - pre.clientHeight / 4);
  }
}

function setView(page) {
  state.pageView = page;
  applyView();
  (page ? $('doc-pages') : $('doc-text')).focus({ preventScroll: true });
}

function renderPages(doc) {
  const box = $('doc-pages');
  if (box.dataset.doc === doc.id) return;
  box.dataset.doc = doc.id;
  if (state.pageObserver) state.pageObserver.disconnect();
  const obs = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.isIntersecting) {
        obs.unobserve(e.target);
        loadPage(doc, e.target);
      }
    }
  }, { root: box, rootMargin: '800px 0px' });
  state.pageObserver = obs;
  const total = doc.layout.pages.length;
  box.replaceChildren(...doc.layout.pages.map((p) => {
    const div = el('div', { className: 'page', 'data-page': p.number },
      el('img', { alt: 'Page ' + p.number + ' of ' + total + ' of ' + doc.name, decoding: 'async' }),
      el('span', { className: 'page-no', 'aria-hidden': 'true' }, String(p.number)));
    div.style.aspectRatio = p.width + ' / ' + p.height;
    return div;
  }));
  for (const div of box.children) obs.observe(div);
  box.scrollTop = 0;
}

async function loadPage(doc, div) {
  const n = Number(div.dataset.page);
  const img = div.querySelector('img');
  try {
    let url = doc.pageURLs.get(n);
    if (!url) {
      const res = await fetch(API + doc.base + '/pages/' + n + '.png?scale=' + PAGE_SCALE, { headers: headers() });
      if (!res.ok) throw await errorOf(res);
      url = URL.createObjectURL(await res.blob());
      doc.pageURLs.set(n, url);
    }
    img.src = url;
  } catch (err) {
    div.append(el('p', { className: 'page-error' }, 'Page ' + n + ' could not be shown: ' + (err.message || err)));
  }
}

const pct = (v, of) => (100 * v / of).toFixed(3) + '%';

// drawPageHighlight lays boxes over the pages for the selected span, one
// per line it touches, and scrolls the first into view. It returns the
// first box, or null.
function drawPageHighlight(scroll) {
  const doc = state.doc;
  const box = $('doc-pages');
  for (const b of box.querySelectorAll('.hl-box')) b.remove();
  const sel = state.sel;
  if (!sel || !doc || !doc.layout) {
    delete box.dataset.start;
    delete box.dataset.end;
    return null;
  }
  box.dataset.start = sel.span.start;
  box.dataset.end = sel.span.end;
  const pad = 1.5; // points around each line
  let first = null;
  for (const p of doc.layout.pages) {
    const div = box.querySelector('.page[data-page="' + p.number + '"]');
    if (!div) continue;
    for (const [s, e, x0, y0, x1, y1] of p.lines) {
      const a = Math.max(s, sel.span.start), b = Math.min(e, sel.span.end);
      if (a >= b) continue;
      const w = (x1 - x0) / (e - s);
      const l = x0 + w * (a - s) - pad, r = x0 + w * (b - s) + pad;
      const hl = el('div', { className: 'hl-box hl-' + sel.kind, 'data-start': a, 'data-end': b, 'aria-hidden': 'true' });
      hl.style.left = pct(Math.max(0, l), p.width);
      hl.style.width = pct(Math.min(p.width, r) - Math.max(0, l), p.width);
      hl.style.top = pct(Math.max(0, y0 - pad), p.height);
      hl.style.height = pct(Math.min(p.height, y1 + pad) - Math.max(0, y0 - pad), p.height);
      div.append(hl);
      if (!first) first = hl;
    }
  }
  if (first && scroll) {
    const page = first.parentElement;
    box.scrollTop = Math.max(0, page.offsetTop + first.offsetTop - box.clientHeight / 4);
  }
  if (first) first.tabIndex = -1;
  return first;
}

// showSource opens a cited document and highlights the cited span.
async function showSource(src, label) {
  if (!src.doc_id) return;
  await openDocument(src.doc_id);
  const mark = highlight(src.span, 'cite', label);
  markOutline(deepestAt(state.doc, src.span.start));
  mark.focus({ preventScroll: true });
}

// ---- upload and ingestion jobs ----

function setupUpload() {
  const drop = $('drop'), input = $('file-input');
  $('choose').addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    if (input.files.length) upload([...input.files]);
    input.value = '';
  });
  for (const t of ['dragenter', 'dragover']) {
    drop.addEventListener(t, (e) => { e.preventDefault(); drop.classList.add('over'); });
  }
  for (const t of ['dragleave', 'drop']) {
    drop.addEventListener(t, () => drop.classList.remove('over'));
  }
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    const files = [...(e.dataTransfer ? e.dataTransfer.files : [])];
    if (files.length) upload(files);
  });
  // A file dropped beside the zone must not navigate away from the app.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());
}

async function upload(files) {
  const form = new FormData();
  for (const f of files) form.append('files', f, f.name);
  const card = jobCard(files.map((f) => f.name));
  $('jobs').prepend(card.root);
  try {
    const r = await api('POST', coll() + '/documents', form);
    const id = r && (r.job_id || r.id || (r.job && r.job.id));
    if (!id) throw new Error('the server accepted the upload but returned no job id');
    await watchJob(id, card);
  } catch (err) {
    card.fail(err.message);
    showError(err);
  }
  await loadDocuments();
}

function jobCard(names) {
  const title = el('p', { className: 'job-title' }, 'Uploading ' + names.length + (names.length === 1 ? ' file' : ' files') + '…');
  const bar = el('progress', { max: 1, value: 0, 'aria-label': 'Ingestion progress' });
  const count = el('span', { className: 'job-count' });
  const list = el('ul', { className: 'job-files' }, names.map((n) => fileRow(n, 'queued', '')));
  const root = el('div', { className: 'job', 'data-state': 'uploading' }, title, el('div', { className: 'job-bar' }, bar, count), list);
  return {
    root, title, bar, count, list, names,
    fail(msg) {
      root.dataset.state = 'failed';
      title.textContent = 'Upload failed: ' + msg;
    },
  };
}

function fileRow(name, status, reason) {
  return el('li', { className: 'status-' + status },
    el('span', { className: 'file-name' }, name),
    el('span', { className: 'badge' }, status),
    reason ? el('span', { className: 'reason' }, reason) : null);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function watchJob(id, card) {
  card.root.dataset.job = id;
  for (let wait = 300; ; wait = Math.min(wait * 1.5, 2000)) {
    const j = await api('GET', '/jobs/' + encodeURIComponent(id));
    const job = j.job && typeof j.job === 'object' ? j.job : j;
    renderJob(job, card);
    if (['done', 'failed', 'cancelled', 'canceled', 'succeeded'].includes(job.status || job.state)) return job;
    await sleep(wait);
  }
}

function renderJob(job, card) {
  const status = job.state || job.status || 'running';
  const p = job.progress || {};
  const results = listOf(job.results || job.files, 'files', 'results');
  const total = p.total || results.length || 0;
  const done = p.done || 0;
  card.root.dataset.state = status;
  card.bar.max = Math.max(total, 1);
  card.bar.value = status === 'done' ? card.bar.max : Math.min(done, card.bar.max);
  card.count.textContent = total ? done + ' / ' + total : '';
  const failed = results.filter((f) => f.status === 'failed').length;
  card.title.textContent = {
    queued: 'Waiting to ingest…',
    running: 'Ingesting' + (p.current ? ': ' + p.current : '…'),
    done: 'Ingested' + (failed ? ' with ' + failed + (failed === 1 ? ' failure' : ' failures') : ''),
    failed: 'Ingestion failed' + (job.error ? ': ' + job.error : ''),
    cancelled: 'Cancelled',
  }[status] || status;
  // One row per uploaded file: its result once there is one.
  const rows = card.names.map((n) => {
    const r = results.find((f) => f.name === n || baseName(f.name || f.path || '') === n);
    return r || { name: n, status: status === 'done' ? 'done' : 'waiting' };
  });
  for (const r of results) if (!rows.includes(r)) rows.push(r);
  card.list.replaceChildren(...rows.map((f) => fileRow(f.name || f.path, f.status || status, f.reason || f.error || '')));
}

const baseName = (p) => p.split(/[\\/]/).pop();

// ---- search ----

async function search(ev) {
  ev.preventDefault();
  const query = $('search-query').value.trim();
  if (!query) return;
  const body = { query, k: 10 };
  if ($('search-scope').checked && state.doc) body.docs = [state.doc.id];
  const out = $('hits');
  $('results').hidden = false;
  out.replaceChildren(el('li', { className: 'hint' }, 'Searching…'));
  try {
    const r = await api('POST', coll() + '/search', body);
    const hits = listOf(r, 'hits', 'results', 'passages');
    $('results-h').textContent = hits.length + ' result' + (hits.length === 1 ? '' : 's') + ' for “' + query + '”';
    const routed = listOf(r.routed_to, 'routed_to').map((d) => d.name || d.id || d).filter(Boolean);
    $('routed').textContent = routed.length ? 'The query names ' + routed.join(', ') + ': only searched there.' : '';
    out.replaceChildren(...hits.map((h, i) => {
      const span = h.span || { start: h.start, end: h.end };
      const text = h.text || h.quote || '';
      const name = h.doc_name || h.doc_id;
      return el('li', { className: 'hit' },
        el('button', {
          type: 'button', className: 'hit-open',
          onclick: () => showSource({ doc_id: h.doc_id, span }, 'Search result ' + (i + 1)).catch(showError),
        },
        el('span', { className: 'hit-where' }, name, h.path ? ' — ' + h.path : ''),
        el('span', { className: 'hit-text' }, text.length > 320 ? text.slice(0, 320) + '…' : text)));
    }));
    if (!hits.length) out.replaceChildren(el('li', { className: 'hint' }, 'Nothing matched.'));
  } catch (err) {
    out.replaceChildren();
    $('results').hidden = true;
    showError(err);
  }
}

// ---- ask: streamed progress, then the report ----

// sse reads a text/event-stream response and yields {event, data}.
async function* sse(res) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value.replace(/\r\n?/g, '\n');
    let cut;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let v = colon < 0 ? '' : line.slice(colon + 1);
        if (v.startsWith(' ')) v = v.slice(1);
        if (field === 'event') event = v;
        else if (field === 'data') data.push(v);
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}

function parseData(s) {
  try { return JSON.parse(s); } catch (_) { return s; }
}

function logLine(kind, text) {
  const log = $('progress');
  log.append(el('li', { className: 'log-' + kind }, el('span', { className: 'log-kind' }, kind), ' ', text));
  log.scrollTop = log.scrollHeight;
}

// progressText turns a progress event into its kind (the agent speaking, a
// question asked, a step) and its text.
function progressText(d) {
  const text = typeof d === 'string' ? d : d.message || d.text || JSON.stringify(d);
  let m = /^(Archivist|Researcher|Interrogator|Writer):\s*([\s\S]*)$/.exec(text);
  if (m) return [m[1].toLowerCase(), m[2]];
  m = /^question (\d+\/\d+):\s*([\s\S]*)$/.exec(text);
  if (m) return ['question ' + m[1], m[2]];
  return ['step', text];
}

async function ask(ev) {
  if (ev) ev.preventDefault();
  const question = $('ask-question').value.trim();
  if (!question) return;
  if (state.asking) state.asking.abort();
  const ctl = new AbortController();
  state.asking = ctl;
  const body = { question };
  if ($('ask-scope').checked && state.doc) body.docs = [state.doc.id];
  if ($('ask-evidence').checked) body.evidence = true;
  $('activity').hidden = false;
  $('progress').replaceChildren();
  $('report').hidden = true;
  $('report').replaceChildren();
  delete $('report').dataset.reportId;
  const btn = $('ask-button');
  btn.disabled = true;
  btn.textContent = 'Asking…';
  logLine('asked', question);
  try {
    const res = await fetch(API + coll() + '/ask', {
      method: 'POST', signal: ctl.signal,
      headers: headers({ 'Content-Type': 'application/json', Accept: 'text/event-stream' }),
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await errorOf(res);
    let got = false;
    if (!(res.headers.get('Content-Type') || '').includes('text/event-stream')) {
      const r = await res.json();
      renderReport(r.report || r);
      got = true;
    } else {
      for await (const { event, data } of sse(res)) {
        const d = parseData(data);
        if (event === 'progress' || event === 'message') {
          const [kind, text] = progressText(d);
          logLine(kind, text);
        } else if (event === 'source') {
          logLine('source', '[' + d.n + '] ' + (d.doc_name || d.doc_id || d.tool || '') + (d.path ? ' — ' + d.path : ''));
        } else if (event === 'report') {
          renderReport(d.report || d);
          if (d.id) $('report').dataset.reportId = d.id;
          got = true;
        } else if (event === 'error') {
          const msg = typeof d === 'string' ? d : d.message || d.error || JSON.stringify(d);
          logLine('error', msg);
          showError(new Error(msg));
        }
      }
    }
    logLine(got ? 'done' : 'error', got ? 'report ready' : 'the stream ended without a report');
    showError(null);
  } catch (err) {
    if (err.name !== 'AbortError') {
      logLine('error', err.message);
      showError(err);
    }
  } finally {
    if (state.asking === ctl) state.asking = null;
    btn.disabled = false;
    btn.textContent = 'Ask';
  }
}

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
    title: external ? src.url || src.tool || 'external source' : (src.doc_name || '') + (src.path ? ' — ' + src.path : ''),
    'aria-label': 'Source ' + n + (src.doc_name ? ', ' + src.doc_name : '') + (src.path ? ', ' + src.path : ''),
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
  if (rep.notice) parts.push(el('p', { className: 'notice' }, rep.notice));
  if ((rep.flags || []).length) {
    parts.push(el('ul', { className: 'flags', 'aria-label': 'Warnings' }, rep.flags.map((f) => el('li', {}, f))));
  }
  for (const [h, text] of sections) {
    if (text && text.trim()) parts.push(el('section', {}, el('h3', {}, h), paragraphs(text, rep)));
  }
  const sources = rep.sources || [];
  parts.push(el('section', { className: 'sources' },
    el('h3', {}, 'Sources'),
    sources.length ? el('ol', { className: 'source-list' }, sources.map((s) => renderSource(s, rep)))
      : el('p', { className: 'hint' }, 'No provision was cited.')));
  if ((rep.removed || []).length) {
    parts.push(el('section', { className: 'removed' }, el('h3', {}, 'Removed quotations'),
      el('p', { className: 'hint' }, 'These quotations were not found in the documents they named.'),
      el('ul', {}, rep.removed.map((s) => el('li', {}, '[' + s.n + '] ' + (s.doc_name || '') + ': “' + (s.quote || '') + '”')))));
  }
  const v = rep.verification;
  if (v && v.quotes) {
    parts.push(el('p', { className: 'hint' }, v.quotes + ' quotations checked against the documents: ' +
      v.verified + ' verified, ' + v.recited + ' re-cited, ' + v.removed + ' removed.'));
  }
  out.replaceChildren(...parts);
  out.hidden = false;
}

function renderSource(s, rep) {
  const where = s.doc_id ? [s.doc_name || s.doc_id, s.path, (s.pages || []).length ? 'p. ' + s.pages.join(', ') : '']
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
  return li;
}

// ---- start ----

function init() {
  state.key = takeKey();
  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const k = $('key-input').value.trim();
    if (!k) return;
    sessionStorage.setItem(KEY_STORE, k);
    state.key = k;
    $('key-input').value = '';
    $('key-form').hidden = true;
    showError(null);
    whoami().then(loadCollections);
  });
  $('collection-form').addEventListener('submit', createCollection);
  $('collection-select').addEventListener('change', (e) => useCollection(e.target.value));
  $('ask-form').addEventListener('submit', ask);
  $('ask-question').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $('ask-form').requestSubmit();
    }
  });
  $('search-form').addEventListener('submit', search);
  $('outline').addEventListener('keydown', outlineKeys);
  $('outline').addEventListener('focusin', outlineFocus);
  $('view-text').addEventListener('click', () => setView(false));
  $('view-page').addEventListener('click', () => setView(true));
  setupUpload();
  whoami().then(loadCollections);
}

// whoami hides what the key may not do: only an admin key creates
// collections. A server without the route leaves the form alone.
async function whoami() {
  try {
    const me = await api('GET', '/whoami');
    if (me && me.admin === false) {
      for (const id of ['collection-new', 'collection-create']) $(id).hidden = true;
      if (me.collection) state.collection = me.collection;
    }
  } catch (_) { /* older server or no key yet: loadCollections reports it */ }
}

init();
