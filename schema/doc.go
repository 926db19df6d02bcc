// Package schema holds the versioned result schemas of invx: the Go types that
// are their single source of truth, the JSON Schema generated from them, the
// system prompt that goes with each version, and the strict, deterministic
// validation every candidate answer passes before it may be committed.
//
// schema imports neither extract nor store.
//
// # Validation
//
// [Version.Validate] runs in two phases and stops at the first problem, so
// one input always yields the same error:
//
//  1. Syntax: at most 64 KiB of valid UTF-8 holding exactly one JSON value.
//     A broken value is [CategoryDecode]; anything but whitespace after it
//     ("{}{}", "{} x") is [CategoryTrailingData]. A lone UTF-16 surrogate
//     escape anywhere in the value is [CategoryDecode]: encoding/json would
//     store it as U+FFFD.
//  2. Meaning: the value is walked token by token and the first error in
//     document order is returned, whatever its category. Keys match the Go
//     type's JSON names exactly; a key seen twice, or a case variant of an
//     earlier key, is [CategoryDuplicateKey], since encoding/json would
//     silently let the later one win.
//
// A value of the wrong JSON type (a string where an integer belongs, null
// where an object or a non-nullable string belongs) is always
// [CategoryDecode]. A missing key is reported when its object closes, with
// the category an empty value of that key would get: schema_version
// [CategorySchemaVersion]; title and bullets [CategoryDisplay]; invoice and
// its five facts [CategoryFacts]; an action's id, kind and evidence
// [CategoryActionID], [CategoryActionKind] and [CategoryActionEvidence].
// action_items may be empty but not absent; a missing action_items is
// [CategoryDecode], because no emptiness check exists for it.
//
// Within one string the checks run in a fixed order: emptiness, byte cap,
// control and bidirectional control characters, then the field's own rule
// (currency table, date, id alphabet, id uniqueness, evidence substring).
//
// Error messages never repeat candidate or source text; see
// [ValidationError].
//
// # invoice-v2
//
// [V2] ([InvoiceV2]) is validated by the same two phases, with the same
// shared checks, and then three more, each in a fixed order: facts that
// depend on other facts (an amount needs a currency; lines_complete needs
// line items that all carry an amount) [CategoryFacts]; the evidence of each
// fact, in field order, present exactly when the fact is stated, an exact
// substring of the source and holding the value ([CategoryEvidence]; the
// matching rules are on checkFactEvidenceValues); and the arithmetic
// ([CategoryArithmetic]; see checkArithmetic). supplier_iban and
// supplier_vat_id are checked during the walk ([CategoryIBAN],
// [CategoryVATID]).
//
// Arithmetic runs last and its failures are all collected: [Version.Validate]
// returns the first, [Version.ValidateReviewable] returns the document with
// all of them in Result.Review, for a provider that cannot repair its answer
// ([Reviewable]). Every category is worth a repair re-ask ([Repairable]).
//
// Evidence is a closed object with one nullable key per fact rather than an
// open map, because strict structured outputs cannot express open maps; see
// [EvidenceV2].
package schema
