// pakton web app: page view of PDFs with a layout.
//
// GET …/layout gives each page's size in points and one box per text line
// with its code-point span: [start, end, x0, y0, x1, y1], from the top-left
// corner. A page is a box with the page's aspect ratio holding the page image
// (fetched when it scrolls near, with the API key, shown from an object
// URL); highlight boxes are placed over it in percentages of the page, so
// they follow the image at any width. A line only partly inside a span is
// cut in proportion to its code points.
'use strict';

const PAGE_SCALE = window.devicePixelRatio >= 2 ? 2.5 : 1.5;

// ZOOMS are the page zoom steps, as a share of the pane's width (1 fits a
// page to it).
const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3];

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
  $('zoom').hidden = !pages;
  $('doc-text').hidden = pages;
  $('doc-pages').hidden = !pages;
  // The clause panel goes under the pages, which need the width.
  $('doc-pages').closest('.doc-body').classList.toggle('pages', pages);
  applyOutline();
  applyTextOptions();
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

// scaleFor returns the image scale (pixels per point) page div needs to
// stay sharp at its shown width: PAGE_SCALE, or more when zoomed in.
function scaleFor(doc, div) {
  const p = doc.layout.pages[Number(div.dataset.page) - 1];
  const need = p && p.width ? div.clientWidth * (window.devicePixelRatio || 1) / p.width : 0;
  return Math.min(4, Math.max(PAGE_SCALE, Math.ceil(need * 2) / 2));
}

async function loadPage(doc, div) {
  const n = Number(div.dataset.page);
  const img = div.querySelector('img');
  const scale = scaleFor(doc, div);
  try {
    let url = doc.pageURLs.get(n + '@' + scale);
    if (!url) {
      const res = await fetch(API + doc.base + '/pages/' + n + '.png?scale=' + scale, { headers: headers() });
      if (!res.ok) throw await errorOf(res);
      url = URL.createObjectURL(await res.blob());
      doc.pageURLs.set(n + '@' + scale, url);
    }
    img.src = url;
    div.dataset.scale = scale;
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
  let first = null;
  const inner = Array.isArray(sel.inner) ? sel.inner : sel.inner ? [sel.inner] : [];
  for (const [span, cls] of [[sel.span, 'hl-' + sel.kind], ...inner.map((x) => [x, 'hl-answer'])]) {
    if (!span) continue;
    const b = boxesFor(doc, box, span, cls);
    if (!first) first = b;
  }
  if (first && scroll) {
    const page = first.parentElement;
    box.scrollTop = Math.max(0, page.offsetTop + first.offsetTop - box.clientHeight / 4);
    // Zoomed wider than the pane: show where the lines start.
    if (box.scrollWidth > box.clientWidth) box.scrollLeft = Math.max(0, page.offsetLeft + first.offsetLeft - 16);
  }
  if (first) first.tabIndex = -1;
  return first;
}

// boxesFor lays one box of class cls over each line span touches and
// returns the first.
function boxesFor(doc, box, span, cls) {
  const pad = 1.5; // points around each line
  let first = null;
  for (const p of doc.layout.pages) {
    const div = box.querySelector('.page[data-page="' + p.number + '"]');
    if (!div) continue;
    for (const [s, e, x0, y0, x1, y1] of p.lines) {
      const a = Math.max(s, span.start), b = Math.min(e, span.end);
      if (a >= b) continue;
      const w = (x1 - x0) / (e - s);
      const l = x0 + w * (a - s) - pad, r = x0 + w * (b - s) + pad;
      const hl = el('div', { className: 'hl-box ' + cls, 'data-start': a, 'data-end': b, 'aria-hidden': 'true' });
      hl.style.left = pct(Math.max(0, l), p.width);
      hl.style.width = pct(Math.min(p.width, r) - Math.max(0, l), p.width);
      hl.style.top = pct(Math.max(0, y0 - pad), p.height);
      hl.style.height = pct(Math.min(p.height, y1 + pad) - Math.max(0, y0 - pad), p.height);
      div.append(hl);
      if (!first) first = hl;
    }
  }
  return first;
}

// setZoom shows the pages at zoom times the pane's width, keeping the
// selected span (or else the same place) in view, and fetches sharper
// images for pages already shown when they need them.
function setZoom(zoom) {
  state.zoom = zoom;
  const box = $('doc-pages');
  const x = box.scrollWidth > box.clientWidth ? (box.scrollLeft + box.clientWidth / 2) / box.scrollWidth : 0.5;
  const y = (box.scrollTop + box.clientHeight / 3) / (box.scrollHeight || 1);
  box.style.setProperty('--zoom', zoom);
  $('zoom-level').textContent = zoom === 1 ? 'Fit width' : Math.round(zoom * 100) + '%';
  $('zoom-level').title = zoom === 1 ? 'Pages fit the pane' : Math.round(zoom * 100) + '% of the pane width';
  $('zoom-out').disabled = zoom <= ZOOMS[0];
  $('zoom-in').disabled = zoom >= ZOOMS[ZOOMS.length - 1];
  $('zoom-fit').disabled = zoom === 1;
  box.scrollLeft = Math.max(0, x * box.scrollWidth - box.clientWidth / 2);
  if (!drawPageHighlight(true)) box.scrollTop = Math.max(0, y * box.scrollHeight - box.clientHeight / 3);
  const doc = state.doc;
  if (!doc || !doc.layout) return;
  for (const div of box.querySelectorAll('.page[data-scale]')) {
    if (scaleFor(doc, div) > Number(div.dataset.scale)) loadPage(doc, div);
  }
}

// zoomBy moves dir steps (+1 in, -1 out) through ZOOMS.
function zoomBy(dir) {
  const z = state.zoom || 1;
  const i = dir > 0 ? ZOOMS.findIndex((s) => s > z) : ZOOMS.findLastIndex((s) => s < z);
  if (i >= 0) setZoom(ZOOMS[i]);
}

// zoomKeys zooms the focused page pane with +, - and 0, as a browser does.
function zoomKeys(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const dir = { '+': 1, '=': 1, '-': -1, '_': -1 }[e.key];
  if (dir) zoomBy(dir);
  else if (e.key === '0') setZoom(1);
  else return;
  e.preventDefault();
}
