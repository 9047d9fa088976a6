// pakton web app: removing things safely — a confirmation before, and an
// undo window after. A document goes to the server's trash (restored by
// Undo, or later by `pakton docs undo`); a review or a collection is
// deleted only when its undo window has passed, so Undo, or closing the
// page, leaves it as it was.
'use strict';

const UNDO_SECONDS = 10;

// confirmAction asks before a removal: resolves true when confirmed. With
// typed, the user types that word (a collection's name) to confirm.
function confirmAction(title, message, action, typed) {
  const dlg = $('confirm');
  $('confirm-title').textContent = title;
  $('confirm-message').textContent = message;
  $('confirm-ok').textContent = action;
  const input = $('confirm-typed');
  $('confirm-typed-row').hidden = !typed;
  input.value = '';
  $('confirm-typed-word').textContent = typed || '';
  $('confirm-ok').disabled = !!typed;
  input.oninput = () => { $('confirm-ok').disabled = input.value.trim() !== typed; };
  return new Promise((resolve) => {
    // A close event is dispatched after the dialog has closed: one still
    // queued from the previous confirmation can arrive after this one has
    // opened, so a close seen while the dialog is open is not this one's.
    const closed = () => {
      if (dlg.open) return;
      dlg.removeEventListener('close', closed);
      resolve(dlg.returnValue === 'ok');
    };
    dlg.returnValue = '';
    dlg.showModal();
    dlg.addEventListener('close', closed);
    (typed ? input : $('confirm-cancel')).focus();
  });
}

// undoWindow shows message with an Undo button for UNDO_SECONDS seconds.
// It resolves true when the user pressed Undo, false when the window
// passed.
function undoWindow(message) {
  const box = $('undo');
  const left = $('undo-left');
  $('undo-message').textContent = message;
  box.hidden = false;
  let n = UNDO_SECONDS;
  left.textContent = n + ' s';
  return new Promise((resolve) => {
    const done = (undone) => {
      clearInterval(tick);
      box.hidden = true;
      $('undo-button').onclick = null;
      resolve(undone);
    };
    const tick = setInterval(() => {
      n -= 1;
      left.textContent = n + ' s';
      if (n <= 0) done(false);
    }, 1000);
    $('undo-button').onclick = () => done(true);
    $('undo-button').focus({ preventScroll: true });
  });
}

// removeOpenDocument moves the open document to the trash, with an undo.
async function removeOpenDocument() {
  const doc = state.doc;
  if (!doc) return;
  const listed = state.docs.find((d) => d.id === doc.id) || {};
  const label = listed.display || doc.name;
  const ok = await confirmAction('Remove this document?', '“' + label + '” (' + doc.name + ') leaves the collection: it is no longer searched, asked about or reviewed. It is kept in the trash for 30 days.', 'Remove');
  if (!ok) return;
  try {
    await api('DELETE', coll() + '/documents/' + encodeURIComponent(doc.id));
    docCache.delete(state.collection + '/' + doc.id);
    closeDocument();
    await loadDocuments();
    if (await undoWindow('Removed “' + label + '”.')) {
      await api('POST', coll() + '/trash/' + encodeURIComponent(doc.id) + '/restore');
      await loadDocuments();
      await openDocument(doc.id);
    }
  } catch (err) { showError(err); }
}

// removeReview deletes the review shown once its undo window has passed.
async function removeReview() {
  const cur = rv.current;
  if (!cur) return;
  const r = cur.review;
  const label = r.title || r.playbook || r.id;
  const ok = await confirmAction('Delete this review?', '“' + label + '”, its grid and every reviewer decision in it are deleted. The contracts are not touched.', 'Delete review');
  if (!ok) return;
  // hidden at once, deleted when the window has passed
  rv.list = rv.list.filter((x) => x.id !== r.id);
  rv.current = null;
  $('review-results').hidden = true;
  renderReviewPick();
  if (await undoWindow('Deleted review “' + label + '”.')) {
    await loadReviews();
    await openReview(r.id);
    return;
  }
  try {
    await api('DELETE', coll() + '/reviews/' + encodeURIComponent(r.id));
  } catch (err) { showError(err); }
  await loadReviews();
}

// removeCollection deletes the collection picked once its undo window has
// passed; the user types its name to confirm.
async function removeCollection() {
  const name = state.collection;
  if (!name) return;
  const ok = await confirmAction('Delete the collection “' + name + '”?', 'Every document in it, its reviews and saved reports are deleted for good once the undo window has passed.', 'Delete collection', name);
  if (!ok) return;
  if (await undoWindow('Deleting the collection “' + name + '”…')) return;
  try {
    await api('DELETE', '/collections/' + encodeURIComponent(name));
    sessionStorage.removeItem(COLLECTION_STORE);
    await loadCollections();
  } catch (err) { showError(err); }
}

function setupSafety() {
  $('doc-remove').addEventListener('click', removeOpenDocument);
  $('review-delete').addEventListener('click', removeReview);
  $('collection-delete').addEventListener('click', removeCollection);
}
