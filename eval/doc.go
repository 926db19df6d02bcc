// Package eval measures how well a provider extracts invoices: it runs a
// suite of documents with expectations through the same pipeline as invx
// run (normalisation, job keys, prompt, strict validation, repair policy,
// fenced commits) in a store of its own, scores the committed results field
// by field, and renders the comparison as text, JSON, JUnit XML, Markdown
// and a self-contained HTML page. Gates turn the figures into a pass or a
// fail for CI.
//
// A suite is a folder of NAME.txt + NAME.expect.json pairs (fixtures/README.md
// documents the format); each subfolder is a sub-suite. Load reads one,
// Score compares one result with its expectation, Run evaluates one
// provider, and Gates.Check judges a Report.
//
// eval uses only the store contract: the caller (cmd) opens a fresh store
// per provider, never the production database.
package eval
