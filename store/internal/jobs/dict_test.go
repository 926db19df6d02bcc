package jobs

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// testDict is a dictionary trained on invoice-like samples, known to the
// process decoder.
var testDict = sync.OnceValues(func() ([]byte, error) {
	var samples [][]byte
	for i := range 300 {
		samples = append(samples, fmt.Appendf(nil, "Invoice %06d from Müller %d GmbH\nNet EUR %d,%02d\nVAT 19 %%\nTotal EUR %d,%02d\nDue 2026-%02d-%02d\n",
			i, i%23, i*31%10000, i%100, i*37%10000, i*3%100, i%12+1, i%28+1))
	}
	d, err := trainDict(samples, 8<<10)
	if err != nil {
		return nil, err
	}
	return d, decoders.add(map[uint32][]byte{binary.LittleEndian.Uint32(d[4:8]): d})
})

// dictCore is a Core whose text kind has the test dictionary.
func dictCore(t testing.TB) (*Core, uint32) {
	t.Helper()
	d, err := testDict()
	if err != nil {
		t.Fatal(err)
	}
	s := &dictSet{enc: map[string]*atomic.Pointer[zstd.Encoder]{}}
	for _, k := range dictKinds {
		s.enc[k] = &atomic.Pointer[zstd.Encoder]{}
	}
	s.enc[kindText].Store(newEncoder(d))
	return &Core{dicts: s}, binary.LittleEndian.Uint32(d[4:8])
}

func TestPackWithDictionary(t *testing.T) {
	t.Parallel()
	c, id := dictCore(t)
	in := "Invoice 004242 from Müller 7 GmbH\nNet EUR 1234,50\nVAT 19 %\nTotal EUR 1469,06\nDue 2026-03-14\n"
	z := c.pack(kindText, []byte(in))
	var h zstd.Header
	if err := h.Decode(z); err != nil {
		t.Fatal(err)
	}
	if h.DictionaryID != id {
		t.Fatalf("frame dictionary id = %d, want %d", h.DictionaryID, id)
	}
	plain := (&Core{}).pack(kindText, []byte(in))
	if len(z) >= len(plain) {
		t.Fatalf("with the dictionary %d bytes, without %d: want smaller", len(z), len(plain))
	}
	for name, f := range map[string][]byte{"with": z, "without": plain} {
		got, err := unpack(f, "")
		if err != nil || got != in {
			t.Fatalf("unpack of the frame %s a dictionary = %q, %v; want %q", name, got, err, in)
		}
		n, err := unpackedSize(f)
		if err != nil || n != int64(len(in)) {
			t.Fatalf("unpackedSize %s = %d, %v; want %d", name, n, err, len(in))
		}
	}
	// Another kind has no dictionary: its frames name none.
	if err := h.Decode(c.pack(kindResult, []byte(in))); err != nil || h.DictionaryID != 0 {
		t.Fatalf("result frame dictionary id = %d, %v; want 0", h.DictionaryID, err)
	}
}

func TestCheckDict(t *testing.T) {
	t.Parallel()
	d, err := testDict()
	if err != nil {
		t.Fatal(err)
	}
	id := int64(binary.LittleEndian.Uint32(d[4:8]))
	if err := checkDict(id, d); err != nil {
		t.Fatalf("the trained dictionary: %v", err)
	}
	body := append([]byte(nil), d...)
	body[len(body)-1] ^= 1
	other := append([]byte(nil), d...)
	binary.LittleEndian.PutUint32(other[4:8], uint32(id+1))
	for name, tc := range map[string]struct {
		id int64
		d  []byte
	}{
		"row id differs":    {id + 1, d},
		"content changed":   {id, body},
		"header id differs": {id + 1, other},
		"not a dictionary":  {id, []byte(strings.Repeat("x", 64))},
	} {
		if err := checkDict(tc.id, tc.d); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if id < 32768 || id >= 1<<31 {
		t.Fatalf("id %d outside the private range", id)
	}
	if err := decoders.add(map[uint32][]byte{uint32(id): body}); err == nil {
		t.Fatal("a second dictionary under a known id was accepted")
	}
}

// FuzzPackRoundTrip: every value reads back byte for byte, with and
// without a dictionary.
func FuzzPackRoundTrip(f *testing.F) {
	for _, s := range []string{"", "x", "Invoice 000001 from Müller 1 GmbH\n", "\xff\xfe\x00", strings.Repeat("Total EUR 12,00\n", 200)} {
		f.Add([]byte(s))
	}
	c, _ := dictCore(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, cc := range []*Core{c, {}} {
			z := cc.pack(kindText, b)
			got, err := unpack(z, "not this")
			if err != nil || got != string(b) {
				t.Fatalf("unpack = %q, %v; want %q", got, err, b)
			}
		}
	})
}

// BenchmarkPack: the CPU a value costs to compress, with and without the
// dictionary, for a payload-sized and a document-sized value.
func BenchmarkPack(b *testing.B) {
	c, _ := dictCore(b)
	doc := []byte(strings.Repeat("Invoice 004242 from Müller 7 GmbH\nNet EUR 1234,50\nVAT 19 %\nTotal EUR 1469,06\nDue 2026-03-14\n", 20))
	for _, v := range []struct {
		name string
		b    []byte
	}{{"400B", doc[:400]}, {"2KB", doc[:2000]}} {
		for _, cc := range []struct {
			name string
			c    *Core
		}{{"plain", &Core{}}, {"dict", c}} {
			b.Run(v.name+"/"+cc.name, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					cc.c.pack(kindText, v.b)
				}
			})
		}
	}
}

// TestTrainDictDegenerate: samples the builder cannot use cost the
// dictionary, never the process (it divided by zero on these).
func TestTrainDictDegenerate(t *testing.T) {
	t.Parallel()
	for name, samples := range map[string][][]byte{
		"all short": {[]byte("abc"), []byte("de"), []byte("1234567")},
		"none":      nil,
	} {
		if _, err := trainDict(samples, 8<<10); err == nil {
			t.Errorf("%s: a dictionary from nothing", name)
		}
	}
	// And sampling skips what it cannot use: no training starts.
	s := &dictSet{cfg: DictConfig{Samples: 4}, samples: map[string][][]byte{}, size: map[string]int{}, done: map[string]bool{}}
	for range 10 {
		s.sample(kindEvent, []byte("{}"))
		s.sample(kindEvent, []byte(strings.Repeat("x", 100)))
	}
	if !s.done[kindEvent] {
		t.Fatal("sampling never completed")
	}
	s.wg.Wait()
}
