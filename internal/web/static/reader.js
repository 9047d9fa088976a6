// pakton web app: the text view of the open document, built for reading.
//
// A PDF's canonical text has one line per printed line, and its running
// headers, footers and page numbers sit between the clauses. The server
// sends, with the text, where a reader's paragraphs start
// (document.Paragraphs) and the spans of page furniture. The text view
// keeps every character of the text, in order, as text nodes — so a span
// still points at exactly its characters and a highlight's textContent is
// exactly the cited text — and only styles them: an empty block before
// each paragraph start (every other line break flows as a space, CSS
// white-space: normal), furniture in its own element (hidden unless asked),
// and the selected span in a <mark> (with the answer's span, when there is
// one, in a <mark> inside it). "Original lines" shows the line breaks of
// the file instead.
'use strict';

// renderText fills the text view with doc's text and returns the <mark>
// of sel ({span, kind, inner}: inner, a span or a list of spans inside
// span, is marked again inside it — a review cell's answer) or null.
function renderText(doc, sel) {
  const n = doc.cp.length - 1;
  const clamp = (x) => Math.max(0, Math.min(n, x | 0));
  const cuts = new Set([0, n]);
  for (const p of doc.paragraphs) cuts.add(p);
  for (const f of doc.furniture) { cuts.add(clamp(f.span.start)); cuts.add(clamp(f.span.end)); }
  let s0 = -1, s1 = -1;
  let inners = []; // the answer's spans inside the selection, sorted, apart
  if (sel) {
    s0 = clamp(sel.span.start); s1 = Math.max(s0, clamp(sel.span.end));
    cuts.add(s0); cuts.add(s1);
    const given = Array.isArray(sel.inner) ? sel.inner : sel.inner ? [sel.inner] : [];
    for (const x of [...given].sort((a, b) => a.start - b.start)) {
      const a = Math.max(s0, clamp(x.start)), b = Math.min(s1, clamp(x.end));
      if (a < b && (!inners.length || a >= inners[inners.length - 1].end)) inners.push({ start: a, end: b, role: x.role });
    }
    for (const x of inners) { cuts.add(x.start); cuts.add(x.end); }
  }
  const pts = [...cuts].sort((a, b) => a - b);
  const paras = new Set(doc.paragraphs);
  const furn = doc.furniture;
  const root = document.createDocumentFragment();
  let mark = null, fi = 0, ii = 0, inner = null, innerAt = -1;
  const newMark = () => el('mark', { className: 'hl-' + sel.kind, tabIndex: -1, 'data-start': sel.span.start, 'data-end': sel.span.end });
  // containerFor returns where the text at code point a goes: an answer
  // span's mark, the selection's mark or the view itself, opening a mark
  // where its span starts. strict: for a paragraph break at a, which
  // belongs inside a mark only when the mark goes on both sides of it.
  const containerFor = (a, strict) => {
    if (!sel || !(strict ? s0 < a && a < s1 : s0 <= a && a < s1)) return root;
    if (!mark) root.append(mark = newMark());
    while (ii < inners.length && inners[ii].end <= a) ii++;
    const x = inners[ii];
    if (!x || !(strict ? x.start < a && a < x.end : x.start <= a && a < x.end)) return mark;
    if (innerAt !== ii) {
      innerAt = ii;
      mark.append(inner = el('mark', { className: 'hl-answer', 'data-start': x.start, 'data-end': x.end }));
    }
    return inner;
  };
  for (let k = 0; k + 1 < pts.length; k++) {
    const a = pts[k], b = pts[k + 1];
    if (paras.has(a)) containerFor(a, true).append(el('span', { className: 'pb', 'aria-hidden': 'true' }));
    if (sel && a === s0 && s0 === s1 && !mark) root.append(mark = newMark());
    const text = doc.text.slice(doc.cp[a], doc.cp[b]);
    while (fi < furn.length && furn[fi].span.end <= a) fi++;
    const into = containerFor(a, false);
    if (fi < furn.length && furn[fi].span.start <= a) {
      into.append(el('span', { className: 'furn', title: furn[fi].kind === 'page_number' ? 'Page number' : 'Running header or footer' }, text));
    } else {
      into.append(text);
    }
  }
  if (sel && !mark) root.append(mark = newMark()); // an empty span at the very end
  const view = $('doc-text');
  view.replaceChildren(root);
  applyTextOptions();
  return mark;
}

// readingOf fills in what the text view needs when the server did not send
// it (an older server): every line its own paragraph, no furniture.
function readingOf(d, text, cp) {
  let paragraphs = Array.isArray(d.paragraphs) ? d.paragraphs : null;
  if (!paragraphs) {
    paragraphs = [];
    let pos = 0;
    for (const line of text.split('\n')) {
      const lead = line.length - line.trimStart().length;
      if (line.trim()) paragraphs.push(pos + [...line.slice(0, lead)].length);
      pos += [...line].length + 1;
    }
  }
  const furniture = Array.isArray(d.furniture) ? d.furniture.filter((f) => f && f.span) : [];
  furniture.sort((a, b) => a.span.start - b.span.start);
  return { paragraphs: paragraphs.filter((p) => p >= 0 && p < cp.length - 1), furniture };
}

// applyTextOptions shows or hides page furniture and the file's line
// breaks, as the reader chose; the buttons show only where they matter.
function applyTextOptions() {
  const doc = state.doc;
  const view = $('doc-text');
  view.classList.toggle('show-furniture', !!state.showFurniture);
  view.classList.toggle('lines', !!state.originalLines);
  const text = !!doc && !showingPages();
  $('furniture-toggle').hidden = !(text && doc.furniture.length);
  $('furniture-toggle').setAttribute('aria-pressed', String(!!state.showFurniture));
  $('lines-toggle').hidden = !text;
  $('lines-toggle').setAttribute('aria-pressed', String(!!state.originalLines));
}

// toggleTextOption flips one of the text view's options and keeps the
// highlight in view.
function toggleTextOption(name) {
  state[name] = !state[name];
  applyTextOptions();
  scrollToMark();
}

// scrollToMark brings the text view's highlight into view (a quarter down).
function scrollToMark() {
  const pre = $('doc-text'), mark = pre.querySelector('mark');
  if (mark) pre.scrollTop = Math.max(0, mark.offsetTop - pre.offsetTop - pre.clientHeight / 4);
}

// outlineShown says whether the clause tree is shown beside the text: the
// reader's choice, else shown in the text view and hidden in the page view
// (where the page needs the width to be legible).
function outlineShown() {
  if (state.outline !== null && state.outline !== undefined) return state.outline;
  return !showingPages();
}

function applyOutline() {
  const doc = state.doc;
  const shown = !!doc && outlineShown();
  $('outline-toggle').hidden = !doc;
  $('outline-toggle').setAttribute('aria-pressed', String(shown));
  $('outline').hidden = !shown;
  $('outline').closest('.doc-body').classList.toggle('no-outline', !shown);
}

function toggleOutline() {
  state.outline = !outlineShown();
  applyOutline();
  scrollToMark();
}

function setupReader() {
  $('furniture-toggle').addEventListener('click', () => toggleTextOption('showFurniture'));
  $('lines-toggle').addEventListener('click', () => toggleTextOption('originalLines'));
  $('outline-toggle').addEventListener('click', toggleOutline);
}
