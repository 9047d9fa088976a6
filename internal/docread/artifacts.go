package docread

// Artifact names: what ingest stores beside each document, and what the
// readers here and above read back.
const (
	// ArtifactSegment is the document's analyzed retrieval units
	// (index.Doc.Encode), what LoadIndex reads.
	ArtifactSegment = "segment"
	// ArtifactSummary is the document's deterministic summary (title,
	// parties, type) as JSON (chunk.DocSummary).
	ArtifactSummary = "summary"
	// ArtifactNames is what the document is called by, learnt from its text
	// at ingest (names.Names as JSON): its parties, their short names and
	// forms, title, type, date, file name and folder. DocNames reads it.
	ArtifactNames = "names"
	// ArtifactVectors holds the embeddings of the document's passages
	// (index.Vectors.Encode), present when an embedder was configured.
	ArtifactVectors = "vectors"
	// ArtifactLayout is where the text sits on the pages
	// (document.EncodeLayout: gzipped JSON), present for PDFs read by
	// pdfium (document.Document.Layout).
	ArtifactLayout = "layout"
	// ArtifactSource is the original file's bytes, kept for documents with
	// a layout (PDFs read by pdfium) so their pages can be rendered. It is
	// as large as the file (bounded by Parse.MaxBytes).
	ArtifactSource = "source"
	// ArtifactReview is the document prepared for the review detectors
	// (detect.Prepared.Encode: its passages, their analyzed words and
	// hashed features, with the answer readers' sections), so a question
	// about a provision of it does not prepare the whole contract again
	// (StoredReview).
	ArtifactReview = "review"
)

// ArtifactFamily is the document's near-duplicate signature
// (family.Signature.Encode): what tells the same contract twice.
const ArtifactFamily = "family"

// ArtifactGraph is the document's defined terms, term uses and
// cross-references (graph.Doc.Encode, JSON), what DocGraph reads.
const ArtifactGraph = "graph"
