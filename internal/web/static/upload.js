// pakton web app: uploads and ingestion jobs.
'use strict';

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
    const r = await api('POST', (await collReady()) + '/documents', form);
    const id = r && (r.job_id || r.id || (r.job && r.job.id));
    if (!id) throw new Error('the server accepted the upload but returned no job id');
    await watchJob(id, card);
  } catch (err) {
    card.fail(err.message, err.rejected);
    showError(err);
  }
  await loadDocuments();
}

function jobCard(names) {
  const title = el('p', { className: 'job-title' }, 'Uploading ' + names.length + (names.length === 1 ? ' file' : ' files') + '…');
  const bar = el('progress', { max: 1, value: 0, 'aria-label': 'Ingestion progress' });
  const count = el('span', { className: 'job-count' });
  const list = el('ul', { className: 'job-files' }, names.map((n) => fileRow(n, 'queued', '')));
  // The files' rows fold away once the job has finished (the title says
  // how it went); the summary opens them again.
  const summary = el('summary', {}, 'Files');
  const files = el('details', { className: 'job-details', open: true }, summary, list);
  const root = el('div', { className: 'job', 'data-state': 'uploading' }, title, el('div', { className: 'job-bar' }, bar, count), files);
  return {
    root, title, bar, count, list, names, files, summary,
    // fail marks the upload and every file failed (none stays "queued"),
    // with each file's own reason when the server gave one.
    fail(msg, rejected) {
      root.dataset.state = 'failed';
      title.textContent = 'Upload failed: ' + msg;
      const why = (n) => ((rejected || []).find((r) => r.name === n || baseName(r.name || '') === n) || {}).reason;
      list.replaceChildren(...names.map((n) => fileRow(n, 'failed', why(n) || msg)));
    },
  };
}

function fileRow(name, status, reason) {
  return el('li', { className: 'status-' + status },
    el('span', { className: 'file-name' }, name),
    el('span', { className: 'badge' }, status),
    reason ? el('span', { className: 'reason' }, reason) : null);
}

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
  card.bar.max = Math.max(total, 1);
  card.bar.value = status === 'done' ? card.bar.max : Math.min(done, card.bar.max);
  card.count.textContent = total ? done + ' / ' + total : '';
  const failed = results.filter((f) => f.status === 'failed').length;
  // A job that finished with failures is a warning, not a success; one
  // whose every file failed has failed.
  let shown = status;
  if (status === 'done' && results.length && failed === results.length) shown = 'failed';
  card.root.dataset.state = shown;
  card.root.classList.toggle('job-warn', shown === 'done' && failed > 0);
  card.title.textContent = shown !== status ? 'Nothing ingested: ' + (failed === 1 ? 'the file failed' : 'all ' + failed + ' files failed') : {
    queued: 'Waiting to ingest…',
    running: 'Ingesting' + (p.current ? ': ' + p.current : '…'),
    done: 'Ingested' + (failed ? ' with ' + failed + (failed === 1 ? ' failure' : ' failures') : ''),
    failed: 'Ingestion failed' + (job.error ? ': ' + job.error : ''),
    cancelled: 'Cancelled',
  }[status] || status;
  // One row per uploaded file: its result once there is one. An archive
  // or e-mail has no result of its own but its entries' (named under it):
  // it failed when every entry did.
  const rows = card.names.map((n) => {
    const r = results.find((f) => f.name === n || baseName(f.name || f.path || '') === n);
    if (r) return r;
    const under = results.filter((f) => (f.name || f.path || '').startsWith(n + '/'));
    if (status === 'done' && under.length && under.every((f) => f.status === 'failed')) return { name: n, status: 'failed', reason: 'every entry failed' };
    return { name: n, status: status === 'done' ? 'done' : 'waiting' };
  });
  for (const r of results) if (!rows.includes(r)) rows.push(r);
  card.list.replaceChildren(...rows.map((f) => fileRow(f.name || f.path, f.status || status, f.reason || f.error || '')));
  card.summary.textContent = rows.length + (rows.length === 1 ? ' file' : ' files') + (failed ? ', ' + failed + ' failed' : '');
  if (['done', 'failed', 'cancelled'].includes(status) && !card.finished) {
    card.finished = true;
    card.files.open = false;
  }
}

const baseName = (p) => p.split(/[\\/]/).pop();
