// pakton web app, core: state, element building, the API client and the
// code point <-> UTF-16 conversion every span goes through. The app is a
// client of the JSON API under /api/v1; its files are classic scripts loaded
// in order by index.html (core.js first, app.js last), sharing one global
// scope: core.js, library.js (collections, document list), upload.js,
// document.js (clause tree, highlights), reader.js (the text view), pages.js
// (page view), graph.js (clause panel),
// search.js, ask.js (streamed progress), report.js, review.js,
// reviewgrid.js and reviewcell.js (the Review tab), deadlines.js (the
// Deadlines tab), safety.js (removing with a confirmation and an undo
// window), app.js (start).
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
  ready: null,   // a promise: the key's collections loaded and one chosen (collReady)
  docs: [],      // document list of the collection
  doc: null,     // the open document: {id, name, text, cp, nodes, byId}
  asking: null,  // AbortController of the running ask
  askId: null,   // id of the running ask, for answering its questions (ask_back)
  sel: null,     // the highlighted span of the open document: {span, kind, label}
  pageView: false, // show PDFs with a layout as page images (the user's choice)
  pageObserver: null, // IntersectionObserver loading page images lazily
  zoom: 1,       // page view zoom, a share of the pane width (1 fits a page to it)
  returnTo: null, // the element that opened the document view, for its Back button
  outline: null, // show the clause tree: true, false, or null (shown in the text view, hidden in the page view)
  showFurniture: false, // show running headers, footers and page numbers in the text view
  originalLines: false, // show the text view with the file's line breaks
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
  let rejected = null;
  try {
    const body = await res.text();
    try {
      const j = JSON.parse(body);
      const e = j.error;
      msg = (e && (e.message || (typeof e === 'string' ? e : ''))) || j.message || msg;
      if (Array.isArray(j.rejected)) rejected = j.rejected; // an upload's files, each with its reason
    } catch (_) {
      if (body.trim()) msg = body.trim().slice(0, 300);
    }
  } catch (_) { /* keep the status line */ }
  if (res.status === 401 || res.status === 403) needKey();
  const err = new APIError(res.status, msg);
  err.rejected = rejected;
  return err;
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

// collReady resolves once the app knows its collection (init sets
// state.ready): a file dropped, or a question asked, before the key's
// collections have loaded waits for them instead of going to no collection.
async function collReady() {
  if (state.ready) await state.ready;
  return coll();
}

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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// pagesLabel names the pages a span touches, as the CLI and reports do
// (document.FormatPages): "p. 5 (PDF page)", "pp. 5–6 (PDF pages)". The
// numbers are physical PDF pages (1 is the file's first page), not the
// numbers printed on them, and the label says so; labels, when given, holds
// the printed number of each page ("" where none), added where it differs:
// "p. 5 (PDF page; printed 3)".
// docLabel is how a contract is named: the title people use (its title,
// parties and date) with the file name after it, or the file name alone.
function docLabel(title, name) {
  return title && title !== name ? title + (name ? ' (' + name + ')' : '') : (name || '');
}

function pagesLabel(pages, labels) {
  if (!pages || !pages.length) return '';
  const first = pages[0], last = pages[pages.length - 1];
  const out = pages.length === 1 ? 'p. ' + first + ' (PDF page)' : 'pp. ' + first + '–' + last + ' (PDF pages)';
  if (!labels || labels.length !== pages.length) return out;
  const a = labels[0] || '', b = labels[labels.length - 1] || '';
  if (a === String(first) && b === String(last)) return out;
  let printed;
  if (a && (last === first || !b || a === b)) printed = a;
  else if (a && b) printed = a + '–' + b;
  else if (b) printed = b;
  else return out;
  return out.slice(0, -1) + '; printed ' + printed + ')';
}

// narrow reports whether the app is laid out in one column (a phone), where
// the document view sits below the questions and answers.
const narrow = () => window.matchMedia('(max-width: 700px)').matches;

// reveal scrolls the window so that element e starts in view, when it does
// not already; panes that scroll on their own are left alone.
function reveal(e) {
  const r = e.getBoundingClientRect();
  if (r.top < 0 || r.top > window.innerHeight * 0.6) e.scrollIntoView({ block: 'start' });
}
