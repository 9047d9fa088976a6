// pakton web app: search.
'use strict';

// search runs the query in the search box; noRoute searches every document
// even when the query seems to name a contract ("search all").
async function search(ev, noRoute) {
  if (ev) ev.preventDefault();
  const query = $('search-query').value.trim();
  if (!query) return;
  const body = { query, k: 10 };
  if (noRoute) body.no_route = true;
  if ($('search-scope').checked && state.doc) body.docs = [state.doc.id];
  const out = $('hits');
  $('results').hidden = false;
  reveal($('results'));
  out.replaceChildren(el('li', { className: 'hint' }, 'Searching…'));
  try {
    const r = await api('POST', coll() + '/search', body);
    const hits = listOf(r, 'hits', 'results', 'passages');
    $('results-h').textContent = hits.length + ' result' + (hits.length === 1 ? '' : 's') + ' for “' + query + '”';
    const routed = listOf(r.routed_to, 'routed_to').map((d) => d.name || d.id || d).filter(Boolean);
    if (routed.length) {
      $('routed').replaceChildren('Searched only: ' + routed.join(', ') + ' — ',
        el('button', { type: 'button', className: 'linkish', id: 'search-all', onclick: () => search(null, true).catch(showError) }, 'search all'));
    } else {
      $('routed').replaceChildren(noRoute ? 'Searched every document.' : '');
    }
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
