package einvoice

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits of the decoder. A real e-invoice is a few hundred KiB at most; the
// caps keep a hostile file from costing more than a bounded amount of memory
// and time.
const (
	// MaxBytes is the largest e-invoice read: 20 MiB.
	MaxBytes = 20 << 20
	// MaxDepth is the deepest element nesting accepted.
	MaxDepth = 64
	// MaxElements is the most elements one document may hold.
	MaxElements = 500_000
)

// node is one element of a parsed document. start and end are the byte
// offsets of the element's source text, start tag to end tag included.
type node struct {
	local string
	space string
	attrs []xml.Attr
	text  strings.Builder
	kids  []*node
	start int
	end   int
}

// Error is why a document could not be read as an e-invoice; its message is
// one line.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// newDecoder is the one way this package decodes XML: strict, only the five
// predefined entities, no charset conversion (the text is UTF-8 already).
func newDecoder(src string) *xml.Decoder {
	d := xml.NewDecoder(strings.NewReader(src))
	d.Strict = true
	d.Entity = nil
	d.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8":
			return input, nil
		}
		return nil, fmt.Errorf("encoding %q: only UTF-8 e-invoices are read", label)
	}
	return d
}

// token reads the next token, refusing a DTD: a DOCTYPE is how entity
// expansion (billion laughs) and external entities (file:///etc/passwd)
// get in, and no e-invoice syntax uses one.
func token(d *xml.Decoder) (xml.Token, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if dir, ok := tok.(xml.Directive); ok {
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(string(dir))), "DOCTYPE") {
			return nil, errors.New("has a DOCTYPE (DTDs and entities are refused)")
		}
		return nil, errors.New("has a <!...> directive")
	}
	return tok, nil
}

// parse reads src into an element tree, enforcing the caps, exactly one
// root element and nothing but white space, comments and processing
// instructions around it.
func parse(src string) (*node, error) {
	if len(src) > MaxBytes {
		return nil, errorf("%d bytes, over the %d byte e-invoice limit", len(src), MaxBytes)
	}
	d := newDecoder(src)
	var root *node
	var stack []*node
	count := 0
	for {
		off := int(d.InputOffset())
		tok, err := token(d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errorf("not well-formed XML: %s", oneLine(err))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && root != nil {
				return nil, errorf("not well-formed XML: a second root element <%s>", t.Name.Local)
			}
			if len(stack) >= MaxDepth {
				return nil, errorf("elements nested deeper than %d", MaxDepth)
			}
			if count++; count > MaxElements {
				return nil, errorf("more than %d elements", MaxElements)
			}
			n := &node{local: t.Name.Local, space: t.Name.Space, attrs: t.Attr, start: off}
			if len(stack) == 0 {
				root = n
			} else {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			n := stack[len(stack)-1]
			n.end = int(d.InputOffset())
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			} else if strings.TrimSpace(string(t)) != "" {
				return nil, errorf("not well-formed XML: text outside the root element")
			}
		}
	}
	if root == nil {
		return nil, errorf("not XML: no root element")
	}
	if len(stack) > 0 {
		return nil, errorf("not well-formed XML: truncated inside <%s>", stack[len(stack)-1].local)
	}
	return root, nil
}

// oneLine keeps an error message on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// child returns the first child element with the given local name.
func (n *node) child(local string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.local == local {
			return k
		}
	}
	return nil
}

// children returns every child element with the given local name.
func (n *node) children(local string) []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, k := range n.kids {
		if k.local == local {
			out = append(out, k)
		}
	}
	return out
}

// path follows local names from n, first match at each step; nil when a
// step is missing.
func (n *node) path(locals ...string) *node {
	for _, l := range locals {
		n = n.child(l)
	}
	return n
}

// attr returns the value of the attribute with the given local name.
func (n *node) attr(local string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// value is the element's trimmed text content ("" for nil).
func (n *node) value() string {
	if n == nil {
		return ""
	}
	return strings.TrimSpace(n.text.String())
}
