// pakton web app: start-up. The other files (see core.js) are loaded first.
'use strict';

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
    state.ready = whoami().then(loadCollections);
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
  $('zoom-in').addEventListener('click', () => zoomBy(1));
  $('zoom-out').addEventListener('click', () => zoomBy(-1));
  $('zoom-fit').addEventListener('click', () => setZoom(1));
  $('doc-pages').addEventListener('keydown', zoomKeys);
  $('doc-back').addEventListener('click', goBack);
  $('doc-filter').addEventListener('input', renderDocuments);
  $('doc-folder').addEventListener('change', renderDocuments);
  $('details-toggle').addEventListener('click', toggleDetails);
  setupUpload();
  setupReader();
  setupReview();
  setupSafety();
  state.ready = whoami().then(loadCollections);
}

// whoami hides what the key may not do: only an admin key creates
// collections. A server without the route leaves the form alone.
async function whoami() {
  try {
    const me = await api('GET', '/whoami');
    if (me && me.admin === false) {
      for (const id of ['collection-new', 'collection-create', 'collection-delete']) $(id).hidden = true;
      if (me.collection) state.collection = me.collection;
    }
  } catch (_) { /* older server or no key yet: loadCollections reports it */ }
}

init();
