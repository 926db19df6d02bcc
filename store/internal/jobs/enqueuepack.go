package jobs

import "github.com/invx/invx/store"

// Compressing a source text is the heaviest CPU work of an enqueue, and the
// write transaction holds the database's one writer (SQLite) while it runs:
// claims and commits of the workers wait for it. So the texts a chunk is
// likely to insert are compressed before its transaction opens, and the
// transaction only copies the bytes. The guess comes from the chunk's
// read-only lookup; a text it missed (another writer changed things since)
// is compressed inside the transaction as before, so the guess decides
// only where the work is done, never what is written.

// packedTexts are compressed texts by the document they belong to (a
// pointer into EnqueueParams.Docs, so two paths of one text are two
// entries).
type packedTexts map[*store.Document][]byte

// prepack compresses the texts of the documents of order that may insert a
// job: read, and with no reference found by the lookup k to the same text
// at their path (a new path, or a changed text).
func (c *Core) prepack(p *store.EnqueueParams, order []int, k *known) packedTexts {
	out := make(packedTexts, len(order))
	for _, i := range order {
		d := &p.Docs[i]
		if d.Unread {
			continue
		}
		if src, ok := k.sources[sourceRef{d.SourceSystem, d.Path}]; ok && src.digest == d.Digest {
			continue
		}
		out[d] = c.pack(kindText, []byte(d.Text))
	}
	return out
}

// text is d's compressed text: the one prepack made, else made now.
func (c *Core) text(pre packedTexts, d *store.Document) []byte {
	if b, ok := pre[d]; ok {
		return b
	}
	return c.pack(kindText, []byte(d.Text))
}
