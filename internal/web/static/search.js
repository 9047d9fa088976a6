// pakton web app: search.
'use strict';

// search runs the query in the search box; noRoute searches every document
// even when the query seems to name a contract ("search all").
async function search(ev, noRoute, docs) {
  if (ev) ev.preventDefault();
  const query = $('search-query').value.trim();
  if (!query) return;
  const body = { query, k: 10 };
  if (noRoute) body.no_route = true;
  if ($('search-scope').checked && state.doc) body.docs = [state.doc.id];
  if (docs) body.docs = docs;
  const out = $('hits');
  $('results').hidden = false;
  reveal($('results'));
  out.replaceChildren(el('li', { className: 'hint' }, 'Searching…'));
  try {
    const r = await api('POST', (await collReady()) + '/search', body);
    const hits = listOf(r, 'hits', 'results', 'passages');
    $('results-h').textContent = hits.length + ' result' + (hits.length === 1 ? '' : 's') + ' for “' + query + '”';
    $('routed').replaceChildren(...routeChips(r, noRoute));
    const absent = listOf(r.not_found, 'not_found');
    if (absent.length) {
      $('routed').append(...absent.map((a) => el('div', { className: 'not-found' },
        'Not found: the review detectors find no ' + a.provision + ' provision in ' + (a.doc_name || a.doc_id) +
        ' (confidence ' + Number(a.confidence).toFixed(2) + '); its passages below only match the question’s words.')));
    }
    out.replaceChildren(...hits.map((h, i) => {
      const span = h.span || { start: h.start, end: h.end };
      const text = h.text || h.quote || '';
      const name = h.doc_name || h.doc_id;
      return el('li', { className: 'hit' },
        el('button', {
          type: 'button', className: 'hit-open',
          onclick: () => showSource({ doc_id: h.doc_id, span }, 'Search result ' + (i + 1)).catch(showError),
        },
        h.doc_title && h.doc_title !== name ? el('span', { className: 'hit-doc' }, h.doc_title) : null,
        el('span', { className: 'hit-where' }, [name, h.path, pagesLabel(h.pages, h.page_labels)].filter(Boolean).join(' — ')),
        h.provision ? el('span', { className: 'hit-provision', title: 'The offline review detectors found this ' + h.provision + ' provision (confidence ' + Number(h.score).toFixed(2) + ')' }, h.provision + ' — found by the review detectors') : null,
        el('span', { className: 'hit-text' }, text.length > 320 ? text.slice(0, 320) + '…' : text)));
    }));
    if (!hits.length) out.replaceChildren(el('li', { className: 'hint' }, 'Nothing matched.'));
  } catch (err) {
    out.replaceChildren();
    $('results').hidden = true;
    showError(err);
  }
}

// docChip is a contract to choose (search.Candidate): its name as people
// say it, its file after it; choosing it searches it alone.
function docChip(c) {
  return el('button', {
    type: 'button', className: 'chip chip-choice', title: [c.name, c.title, c.date].filter(Boolean).join(' — '),
    onclick: () => search(null, false, [c.doc_id]).catch(showError),
  }, c.display && c.display !== c.name ? [c.display, ' ', el('span', { className: 'chip-file' }, c.name)] : c.name);
}

// routeChips says how the search was routed (search.Route): the contracts
// the question names and by which names, as chips; for a name that fits
// several contracts, a chip per candidate that searches it alone; a name
// no contract goes by; "search all" to undo routing.
function routeChips(r, noRoute) {
  const route = r.route || {};
  const all = el('button', { type: 'button', className: 'linkish', id: 'search-all', onclick: () => search(null, true).catch(showError) }, 'search all');
  const names = (route.matched || []).map((m) => el('span', { className: 'chip chip-name', title: m.kind ? m.name + ' — ' + m.kind : m.name }, '“' + m.text + '”'));
  const routed = listOf(r.routed_to, 'routed_to');
  switch (route.decision) {
    case 'ambiguous': {
      const cands = route.candidates || [];
      const chip = docChip;
      // A name that fits a hundred contracts of a large collection: the
      // first ten, and a chip that shows the others.
      const shown = cands.length > 12 ? 10 : cands.length;
      const more = shown < cands.length ? el('button', {
        type: 'button', className: 'chip chip-more', id: 'route-more',
        onclick: (ev) => ev.target.replaceWith(...cands.slice(shown).map(chip)),
      }, '+' + (cands.length - shown) + ' more') : '';
      return [el('span', { className: 'route-why' }, ...names, ' fits ' + cands.length + ' contracts — searched all of them; choose one: '),
        ...cands.slice(0, shown).map(chip), more, ' ', all];
    }
    case 'named':
    case 'several':
      return [el('span', { className: 'route-why' }, 'Searched only: '),
        ...routed.map((d) => el('span', { className: 'chip chip-doc', title: d.name || d.id }, d.display || d.name || d.id)),
        names.length ? el('span', { className: 'route-by' }, ' named by ', ...names) : '', ' — ', all];
    case 'unknown':
      // A name near no contract's: nothing searched, the nearest offered.
      if ((route.nearest || []).length) {
        return [el('span', { className: 'route-why' }, route.why || ''), ' ', ...route.nearest.map(docChip), ' ', all];
      }
      if (route.why) return [el('span', { className: 'route-why' }, route.why), ' ', all];
      return [noRoute ? 'Searched every document.' : ''];
    case 'all':
      if (route.why) return [el('span', { className: 'route-why' }, route.why)];
      return [noRoute ? 'Searched every document.' : ''];
    case 'off':
      return ['Searched every document.'];
  }
  if (routed.length) {
    return ['Searched only: ' + routed.map((d) => d.name || d.id).join(', ') + ' — ', all];
  }
  return [noRoute ? 'Searched every document.' : ''];
}
