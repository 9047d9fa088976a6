// pakton web app: collections and the document list.
'use strict';

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
  if (typeof resetReview === 'function') resetReview();
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

// docMatches reports whether document d matches every word of the filter,
// in its name, id or format, ignoring case and accents.
function docMatches(d, words) {
  const hay = fold([d.name, d.id, d.format].filter(Boolean).join(' '));
  return words.every((w) => hay.includes(w));
}

const fold = (s) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

function renderDocuments() {
  const list = $('doc-list');
  const total = state.docs.length;
  const words = fold($('doc-filter').value).split(/\s+/).filter(Boolean);
  const shown = words.length ? state.docs.filter((d) => docMatches(d, words)) : state.docs;
  $('doc-empty').hidden = total > 0;
  $('doc-filter-row').hidden = total < 2 && !words.length;
  $('doc-count').textContent = !total ? '' : shown.length === total ? String(total) : shown.length + ' of ' + total;
  $('doc-nomatch').hidden = !total || shown.length > 0;
  $('doc-nomatch').textContent = 'No document matches “' + $('doc-filter').value.trim() + '”.';
  list.replaceChildren(...shown.map((d) => el('li', {},
    el('button', {
      type: 'button', className: 'doc-item', 'data-doc': d.id,
      'aria-current': state.doc && state.doc.id === d.id ? 'true' : null,
      onclick: (e) => {
        const from = e.currentTarget;
        openDocument(d.id).then(() => showDocPane(from)).catch(showError);
      },
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
