// pakton web app: collections and the document list.
'use strict';

// ---- collections ----

async function loadCollections() {
  let names = [];
  let list = [];
  try {
    list = listOf(await api('GET', '/collections'), 'collections', 'items');
    names = list.map((c) => (typeof c === 'string' ? c : c.name)).filter(Boolean);
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
  // A collection still opening is said so before its documents are listed
  // (their families wait for the opening); otherwise after.
  const picked = list.find((c) => c && c.name === pick);
  if (picked && picked.opening) showOpening(picked);
  await useCollection(pick);
  if (!picked || !picked.opening) showOpening(picked);
}

// ---- a collection the server is still opening ----

// The server opens its collections in the background when it starts (the
// list of documents, the search index, the families of near-duplicate
// files). While it does, the collection listing says how far it is: the
// document list says so too, and once it is open the families are loaded.
const OPENING_STAGES = {
  documents: 'reading the list of documents',
  index: 'loading the search index',
  families: 'grouping near-duplicate files',
};

function showOpening(c) {
  clearTimeout(state.openingTimer);
  const note = $('doc-opening');
  const op = c && c.opening;
  if (!op) {
    if (!note.hidden) {
      note.hidden = true;
      if (typeof loadFamilies === 'function') loadFamilies().then(renderDocuments).catch(() => {});
    }
    return;
  }
  let text = 'The server is opening this collection: ' + (OPENING_STAGES[op.stage] || op.stage);
  if (op.total) text += ' (' + (op.done || 0).toLocaleString('en') + ' of ' + op.total.toLocaleString('en') + ')';
  note.textContent = text + '… Search works meanwhile; families of copies appear when it is done.';
  note.hidden = false;
  const name = c.name;
  state.openingTimer = setTimeout(async () => {
    if (state.collection !== name) return;
    try {
      const list = listOf(await api('GET', '/collections'), 'collections', 'items');
      if (state.collection === name) showOpening(list.find((x) => x && x.name === name));
    } catch (_) {
      note.hidden = true;
    }
  }, 1000);
}

async function useCollection(name) {
  if (state.collection !== name) { // another collection's families
    state.familyOf = null;
    state.families = [];
  }
  state.collection = name;
  sessionStorage.setItem(COLLECTION_STORE, name);
  closeDocument();
  $('report').hidden = true;
  document.querySelector('main.layout').classList.remove('reporting');
  $('results').hidden = true;
  $('activity').hidden = true;
  if (typeof resetReview === 'function') resetReview();
  if (typeof resetDeadlines === 'function') resetDeadlines();
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
  // The families are asked beside the list, not after it: a large
  // collection's list takes longer to come than its families.
  const families = typeof fetchFamilies === 'function' ? fetchFamilies() : null;
  try {
    state.docs = listOf(await api('GET', coll() + '/documents'), 'documents', 'items');
    showError(null);
  } catch (err) {
    state.docs = [];
    showError(err);
  }
  // The list first: the families (one row per contract) follow, and the
  // list is drawn again only when they change its rows (a row redrawn
  // under the user's pointer loses the click).
  renderDocuments();
  if (families) {
    const before = familiesKey();
    applyFamilies(await families);
    if (familiesKey() !== before) renderDocuments();
  }
}

// familiesKey names the families the list was drawn with.
function familiesKey() {
  return (state.families || []).map((f) => f.primary + ':' + (f.members || []).map((m) => m.id).join('+')).join(' ');
}

// MAX_DOC_ROWS bounds the rows the document list draws: a collection of
// tens of thousands of contracts is found by filtering, not by scrolling.
const MAX_DOC_ROWS = 1000;

// docMatches reports whether document d matches every word of the filter,
// in its name, id or format, ignoring case and accents.
function docMatches(d, words) {
  const hay = fold([d.display, d.name, d.id, d.format, d.folder].filter(Boolean).join(' '));
  return words.every((w) => hay.includes(w));
}

const fold = (s) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

function renderDocuments() {
  const list = $('doc-list');
  const total = state.docs.length;
  const words = fold($('doc-filter').value).split(/\s+/).filter(Boolean);
  const folder = $('doc-folder') ? $('doc-folder').value : '';
  const shown = state.docs.filter((d) => (!words.length || docMatches(d, words)) && (typeof inFolder !== 'function' || inFolder(d, folder)));
  $('doc-empty').hidden = total > 0;
  $('doc-filter-row').hidden = total < 2 && !words.length;
  $('doc-count').textContent = !total ? '' : shown.length === total ? String(total) : shown.length + ' of ' + total;
  $('doc-nomatch').hidden = !total || shown.length > 0;
  $('doc-nomatch').textContent = 'No document matches “' + $('doc-filter').value.trim() + '”.';
  // One row per family (the same contract in several files) unless the
  // user is filtering; its other copies are one click away.
  const all = typeof familyRows === 'function' ? familyRows(shown, words.length > 0) : shown.map((d) => ({ doc: d }));
  const rows = all.slice(0, MAX_DOC_ROWS);
  $('doc-more').hidden = all.length <= rows.length;
  $('doc-more').textContent = 'Showing the first ' + rows.length.toLocaleString('en') + ' of ' + all.length.toLocaleString('en') + ' rows: filter by name to find the others.';
  list.replaceChildren(...rows.map(({ doc: d, family, others, member }) => el('li', { className: member ? 'family-member' : null },
    el('button', {
      type: 'button', className: 'doc-item', 'data-doc': d.id,
      'aria-current': state.doc && state.doc.id === d.id ? 'true' : null,
      onclick: (e) => {
        const from = e.currentTarget;
        openDocument(d.id).then(() => showDocPane(from)).catch(showError);
      },
    },
    // The contract as people name it (title, parties, date), its file
    // under it.
    d.display && d.display !== d.name
      ? el('span', { className: 'doc-name', title: d.name }, el('span', { className: 'doc-title' }, d.display), el('span', { className: 'doc-file' }, d.name))
      : el('span', { className: 'doc-name' }, d.name || d.id),
    el('span', { className: 'doc-facts' }, docFacts(d))),
    family && others.length ? el('button', {
      type: 'button', className: 'linkish family-toggle', 'data-family': family.id,
      'aria-expanded': state.openFamilies && state.openFamilies.has(family.id) ? 'true' : 'false',
      title: 'Other files of the same contract (near-duplicates and versions)',
      onclick: () => toggleFamily(family.id),
    }, '+' + others.length + ' other ' + (others.length === 1 ? 'copy' : 'copies')) : null,
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
