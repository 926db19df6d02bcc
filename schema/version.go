package schema

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// ErrUnknownVersion is wrapped by Lookup when no released version has the
// name, so a command can turn it into a usage error listing Versions().
var ErrUnknownVersion = errors.New("unknown schema version")

// Version is one released result schema: its Go type, the JSON Schema
// generated from it, the system prompt that asks for it and its validator.
// Versions are immutable once released, so a *Version is safe to share.
type Version struct {
	// Name is the schema_version value documents of this version carry,
	// such as "invoice-summary-v1".
	Name string

	description string
	goType      reflect.Type
	prompt      string
	validate    func(v *Version, raw []byte, source string, c checks) (*Result, *ValidationError)
	schemaJSON  func() []byte
	// promptHash is PromptHash, hashed once: every provider call records
	// it, and hashing the prompt and schema again was 2 % of a replayed run.
	promptHash func() string
}

// Result is a candidate document that passed validation, in the forms the
// rest of invx needs: canonical bytes to store, and decoded parts to export,
// evaluate and turn into outbox events.
type Result struct {
	// Version is the schema version the document was validated against; a
	// stored result is never re-read as another version.
	Version string
	// JSON is the canonical encoding of the decoded document: compact, keys
	// in the Go type's field order, no HTML escaping. Equal documents give
	// equal bytes, whatever whitespace or escapes the provider chose.
	JSON []byte
	// The decoded parts, so exports, evaluation and the outbox need not
	// decode JSON again. Actions is empty, never nil, when there are none.
	Facts   InvoiceFacts
	Actions []ActionItem
	Title   string
	Bullets []string
	// InvoiceV2 is the decoded document when Version is V2, nil otherwise.
	// Its slices are empty, never nil. Facts stays zero for V2: v2 facts
	// are read from here, never projected onto v1's.
	InvoiceV2 *InvoiceV2
	// Review lists, in a fixed order, the problems of [Reviewable]
	// categories that ValidateReviewable let through. Validate never
	// returns a Result with a non-empty Review.
	Review []*ValidationError
}

//go:embed prompts/invoice-summary-v1.txt
var promptV1 string

//go:embed prompts/invoice-v2.txt
var promptV2 string

var v1 = newVersion(V1,
	"Summary of one supplier invoice: a title, one to five bullets, the invoice facts and follow-up actions backed by verbatim evidence.",
	reflect.TypeFor[InvoiceSummaryV1](), promptV1, validateV1)

var v2 = newVersion(V2,
	"Accounts-payable facts of one supplier document: type, parties, numbers, dates, amounts, tax lines and line items, each fact backed by verbatim evidence, plus a title, bullets and follow-up actions.",
	reflect.TypeFor[InvoiceV2](), promptV2, validateV2)

// versions holds every released version. A new version is added beside the
// old ones, never instead of them.
var versions = map[string]*Version{
	v1.Name: v1,
	v2.Name: v2,
}

func newVersion(name, description string, t reflect.Type, prompt string,
	validate func(*Version, []byte, string, checks) (*Result, *ValidationError)) *Version {
	v := &Version{Name: name, description: description, goType: t, prompt: prompt, validate: validate}
	// Generated once on first use: reflection is cheap but not free, and
	// most commands never ask for the schema.
	v.promptHash = sync.OnceValue(func() string {
		h := sha256.New()
		h.Write([]byte(v.prompt))
		h.Write(v.schemaJSON())
		return hex.EncodeToString(h.Sum(nil))
	})
	v.schemaJSON = sync.OnceValue(func() []byte {
		b, err := generateJSONSchema(v.Name, v.description, v.goType)
		if err != nil {
			// The input is a compiled-in type, so this is a programming
			// error that the golden test catches before release.
			panic(err)
		}
		return b
	})
	return v
}

// Versions returns the names of the released versions, sorted, for help
// text and for checking a --schema flag.
func Versions() []string {
	names := make([]string, 0, len(versions))
	for name := range versions {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the released version with the given name. The error wraps
// ErrUnknownVersion.
func Lookup(name string) (*Version, error) {
	v, ok := versions[name]
	if !ok {
		return nil, fmt.Errorf("schema %q: %w", name, ErrUnknownVersion)
	}
	return v, nil
}

// Latest returns the newest released version, invoice-v2, the default for
// new jobs. Existing jobs keep the version they were created with, and
// invoice-summary-v1 stays selectable by name (Lookup), so v1 results and
// exports do not change.
func Latest() *Version {
	return v2
}

// JSONSchema returns the JSON Schema (draft 2020-12) generated from the
// version's Go type: indented, byte-for-byte deterministic, every object
// closed with additionalProperties false and every nullable fact typed as
// ["string","null"] or ["integer","null"]. The caller owns the returned
// slice.
func (v *Version) JSONSchema() []byte {
	return slices.Clone(v.schemaJSON())
}

// StrictJSONSchema returns the schema in the subset that strict structured
// outputs (OpenAI strict mode and the servers that copy it) accept: the root
// is an object, every object is closed and lists every property in required,
// and keywords such as format and minLength are dropped because validation
// checks them anyway. Each call returns a fresh map the caller may change.
// Its keys lose the field order when marshalled; required keeps it.
func (v *Version) StrictJSONSchema() map[string]any {
	var node map[string]any
	if err := json.Unmarshal(v.schemaJSON(), &node); err != nil {
		// schemaJSON is our own encoder's output.
		panic(fmt.Sprintf("decode generated schema %s: %v", v.Name, err))
	}
	return strictSchema(node)
}

// Prompt returns the system prompt that goes with this version. It is part
// of the version: changing it changes PromptHash, which every attempt row
// records.
func (v *Version) Prompt() string {
	return v.prompt
}

// PromptHash identifies what a provider was asked: the hex SHA-256 of
// Prompt() followed by JSONSchema(). Attempts with equal hashes were asked
// the same question, so their outcomes are comparable.
func (v *Version) PromptHash() string {
	return v.promptHash()
}

// Validate decides whether raw, a provider's candidate answer, is a valid
// document of this version for source, the normalised document text the
// evidence must come from. Validation is deterministic: syntax first, then
// the first error in document order (see the package documentation). A
// non-nil error is always a *ValidationError.
func (v *Version) Validate(raw []byte, source string) (*Result, error) {
	res, verr := v.validate(v, raw, source, checks{})
	if verr != nil {
		return nil, verr
	}
	if len(res.Review) > 0 {
		return nil, res.Review[0]
	}
	return res, nil
}

// ValidateReviewable is Validate for an answer that will not be repaired:
// a provider that cannot take feedback, or the last attempt of the repair
// budget. A document whose only problems are of [Reviewable] categories is
// returned with them in Result.Review, so the caller can commit it and hold
// it for a clerk; any other problem is returned as Validate would. Reviewable
// checks run last, after every other check has passed, so Review is never a
// partial picture of a broken document.
func (v *Version) ValidateReviewable(raw []byte, source string) (*Result, error) {
	res, verr := v.validate(v, raw, source, checks{})
	if verr != nil {
		return nil, verr
	}
	return res, nil
}

// The markers Prompt tells the model to expect around the document. They are
// fixed per version because the prompt, and so PromptHash, names them.
const (
	documentStart = "<<<INVOICE"
	documentEnd   = "INVOICE>>>"
)

// UserMessage returns the user message that goes with Prompt: the normalised
// document text between the markers the prompt names, so the model can tell
// data from instructions. Providers that send a user message should build it
// here rather than invent their own framing.
func (v *Version) UserMessage(text string) string {
	return documentStart + "\n" + text + "\n" + documentEnd
}
