// Package pdftext reads what an invoice PDF carries for invx: the text layer,
// laid out on a character grid like `pdftotext -layout` so the rules extractor
// can read its columns and lines, and the embedded files, where ZUGFeRD,
// Factur-X and XRechnung put the structured invoice.
//
// The PDF engine is PDFium compiled to WebAssembly (github.com/klippa-app/go-pdfium)
// running on the pure-Go wazero runtime: no cgo, no external program, one
// binary. docs/pdf-libraries.md gives the comparison that chose it. Every
// document gets a fresh WebAssembly instance with capped memory, so a hostile
// file can neither crash the process nor leak into the next document.
package pdftext
