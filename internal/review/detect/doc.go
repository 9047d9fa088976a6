// Package detect finds where a playbook's provisions are in a contract, and
// learns how from labelled contracts: the detection and training half of a
// review, with no run, table or decision in it.
//
// What it offers the review above it (internal/review) is small:
//
//   - a prepared contract (Prepare → *Prepared): the contract cut into
//     passages (Passage: a clause's own text or a piece of it, with its
//     heading words and place), every passage analyzed and its features
//     hashed, once, shared by every scorer; Memo keeps what the layers above
//     derive from the whole contract (running lines, defined dates) with it;
//   - a scorer (NewScorer → *Scorer): every passage's probability of holding
//     each provision — a trained logistic detector where the detectors have
//     one, the zero-shot scorer calibrated on the labelled provisions
//     elsewhere — with each provision's confidence, threshold and method;
//     Pick chooses a cell's passages from those scores; the scorer also
//     matches questions to provisions (MatchQuestion, AskedProvisions);
//   - training (LoadTraining, Train) from a labels file (Labels) into
//     Detectors, the plain JSON the scorer reads (LoadDetectors);
//   - the analyzer (Analyze, StemWord) whose words the detectors were
//     trained on, which the answer readers use too so a cue word means the
//     same thing to both.
//
// Imports run one way: review imports detect, never the reverse; detect
// imports only the text floor (document, clause, parse, the playbook
// format) and base utilities, so detection and training run, are measured
// and are retrained with no store, index, search or model server.
package detect
