package jobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"
)

// Zstd dictionaries (migration 014, docs/storage.md). A document's text, a
// result's JSON and an event's payload are 0.2-2 KB each and compressed one
// by one, so each frame starts from an empty window and pays again for the
// vocabulary every row shares (labels, key names, field layout). A
// dictionary trained on the database's own first rows of a kind gives that
// vocabulary to every later frame.
//
// The rules that keep every row readable:
//   - a dictionary row is immutable (triggers refuse UPDATE and DELETE);
//   - its id is derived from its content (dictID), and is the zstd
//     dictionary ID every frame that uses it carries in its header, so a
//     frame names exactly the bytes it needs and two databases' dictionaries
//     never share an id by accident;
//   - the process decodes with every dictionary of every database it has
//     open (one decoder, rebuilt when one is added); a frame with an id it
//     does not know makes it read the open databases' dictionaries again
//     (another process may have trained one since);
//   - frames without a dictionary (every row before 014, and the first rows
//     of a database) decode as before.

// The kinds of payload, each with its own dictionary: their vocabularies
// have little in common.
const (
	kindText   = "text"   // job_texts.zst
	kindResult = "result" // results.result_zst
	kindEvent  = "event"  // outbox.payload_zst
)

var dictKinds = []string{kindText, kindResult, kindEvent}

// DictConfig sets when a database trains its dictionaries.
type DictConfig struct {
	// Samples is how many values of a kind a process collects before it
	// trains that kind's dictionary; 0 means defaultDictSamples, < 0 never.
	Samples int
	// MaxSize caps a dictionary's size in bytes (0: defaultDictSize).
	MaxSize int
}

const (
	// 128 samples: measured on bench/gen output, the database at 10k
	// documents is the same size as with 256 (fewer values are written
	// before the dictionary lands; 256 was within 5 % of 2,000), and the
	// builder's tables, held while it trains, are half as large (peak
	// anonymous memory of a 10k replay run 30.4 -> 27.6 MiB). Training
	// takes about 0.05 s per kind, once per database, off the write path.
	defaultDictSamples = 128
	// 32 KiB: 64 KiB was no better on invoice text, and every dictionary
	// costs its size once per database and in every decoder.
	defaultDictSize = 32 << 10
	// A sample is cut to its first sampleCap bytes and a kind stops
	// collecting at sampleBudget, so one process never holds more than
	// that per kind, whatever the documents' size.
	sampleCap    = 16 << 10
	sampleBudget = 2 << 20
	// Values shorter than minSample are not samples (the builder indexes
	// 8-byte sequences, and divides by zero when it finds none); a kind
	// whose samples total less than minTrain gets no dictionary.
	minSample = 16
	minTrain  = 8 << 10
	// dictGeneration is the generation a database's first dictionary of a
	// kind is stored under: UNIQUE (kind, generation) lets two processes
	// that trained at once agree on one. A later retraining would store
	// generation 2 beside it, never over it.
	dictGeneration = 1
)

// dictID is the zstd dictionary ID of a dictionary whose body (everything
// after the magic and the id) is body: from sha256, inside the range the
// zstd format leaves to private use (32768 to 2^31-1).
func dictID(body []byte) uint32 {
	h := sha256.Sum256(body)
	return 32768 + binary.LittleEndian.Uint32(h[:4])%((1<<31)-32768)
}

// trainDict builds a zstd dictionary from samples, with its content-derived
// id written into its header.
func trainDict(samples [][]byte, maxSize int) (d []byte, err error) {
	// The builder is written for well-fed input and has panicked on
	// degenerate samples: a panic here costs a dictionary, never the
	// process.
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("build dictionary: %v", r)
		}
	}()
	d, err = dict.BuildZstdDict(samples, dict.Options{
		MaxDictSize: maxSize, HashBytes: 6,
		ZstdDictID: 32768, // replaced below, once the body is known
		ZstdLevel:  zstd.SpeedFastest,
	})
	if err != nil {
		return nil, err
	}
	if len(d) <= 8 {
		return nil, errors.New("dictionary has no body")
	}
	binary.LittleEndian.PutUint32(d[4:8], dictID(d[8:]))
	return d, nil
}

// checkDict verifies that a stored dictionary is well formed and that its
// row id, header id and content agree.
func checkDict(id int64, d []byte) error {
	if len(d) <= 8 || !bytes.Equal(d[:4], []byte{0x37, 0xa4, 0x30, 0xec}) {
		return fmt.Errorf("zstd dictionary %d: not a zstd dictionary", id)
	}
	hid := binary.LittleEndian.Uint32(d[4:8])
	if int64(hid) != id || hid != dictID(d[8:]) {
		return fmt.Errorf("zstd dictionary %d: header id %d, content id %d", id, hid, dictID(d[8:]))
	}
	return nil
}

// decoders is the process's one decoder, with every dictionary of every
// open database.
var decoders = &dictRegistry{dicts: map[uint32][]byte{}, sets: map[*dictSet]struct{}{}}

type dictRegistry struct {
	mu    sync.Mutex
	dicts map[uint32][]byte
	// sets are the open databases' dictionaries, asked to reload when a
	// frame names a dictionary the process does not know.
	sets map[*dictSet]struct{}
	dec  atomic.Pointer[zstd.Decoder]
}

// decoder is the current decoder; DecodeAll on it is safe for concurrent
// use, and it is never closed (a replaced one may still be in use: it
// starts no goroutine for DecodeAll, so the garbage collector takes it).
func (r *dictRegistry) decoder() *zstd.Decoder {
	if d := r.dec.Load(); d != nil {
		return d
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := r.dec.Load(); d != nil {
		return d
	}
	d := newDecoder(nil)
	r.dec.Store(d)
	return d
}

func newDecoder(dicts map[uint32][]byte) *zstd.Decoder {
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1 << 30)}
	for _, d := range dicts {
		opts = append(opts, zstd.WithDecoderDicts(d))
	}
	d, err := zstd.NewReader(nil, opts...)
	if err != nil {
		// Every dictionary was loaded by add first: only bad options fail.
		panic(fmt.Sprintf("zstd decoder: %v", err))
	}
	return d
}

// add makes dictionaries known to the decoder. An id already known with
// other content is refused: a frame could not tell them apart.
func (r *dictRegistry) add(ds map[uint32][]byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for id, d := range ds {
		if old, ok := r.dicts[id]; ok {
			if !bytes.Equal(old, d) {
				return fmt.Errorf("zstd dictionary %d: another dictionary has the same id", id)
			}
			continue
		}
		// Load it alone first, so a bad one is an error here, not a
		// panic in newDecoder.
		if _, err := zstd.NewReader(nil, zstd.WithDecoderDicts(d)); err != nil {
			return fmt.Errorf("zstd dictionary %d: %w", id, err)
		}
		r.dicts[id] = d
		added = true
	}
	if added {
		r.dec.Store(newDecoder(r.dicts))
	}
	return nil
}

// refresh reads the open databases' dictionaries again.
func (r *dictRegistry) refresh() {
	r.mu.Lock()
	sets := make([]*dictSet, 0, len(r.sets))
	for s := range r.sets {
		sets = append(sets, s)
	}
	r.mu.Unlock()
	for _, s := range sets {
		// unpack runs inside row scans, with no context: the reload has
		// its own short deadline. An error leaves the frame undecodable,
		// which unpack reports.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = s.load(ctx)
		cancel()
	}
}

// dictSet is one open database's dictionaries: the encoder of each kind
// (with the kind's dictionary once there is one) and the samples collected
// towards training it.
type dictSet struct {
	core *Core
	cfg  DictConfig
	enc  map[string]*atomic.Pointer[zstd.Encoder]

	mu      sync.Mutex
	samples map[string][][]byte
	size    map[string]int
	// done marks a kind that has a dictionary, or is training one: it
	// collects no more samples.
	done map[string]bool
	// closed: no training starts any more (closeDicts).
	closed bool

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc
	wg     sync.WaitGroup // training goroutines
}

// plainEnc is the encoder of a kind without a dictionary: one for the
// process, as EncodeAll is safe for concurrent use.
var plainEnc = sync.OnceValue(func() *zstd.Encoder { return newEncoder(nil) })

// encoderWindow is the encoders' window size.
const encoderWindow = 128 << 10

func newEncoder(d []byte) *zstd.Encoder {
	// The fastest level: it gets most of the ratio on invoice text at a
	// fraction of the CPU of the better levels. A concurrency of 1:
	// EncodeAll does not use the background workers, and each would hold
	// a window's buffers for nothing. No checksum: the database has its own.
	opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false),
		// A small window: an encoder with a dictionary keeps a history
		// buffer of the window's size (8 MiB by default) for as long as
		// it lives, for values that are a few KiB. Matches farther back
		// than 128 KiB are rare in one document.
		zstd.WithWindowSize(encoderWindow),
		// Buffers sized to the values written (a few KiB) rather than to
		// a full 128 KiB block each, allocated up front: the four
		// encoders (no dictionary, and one per kind) live as long as the
		// process.
		zstd.WithLowerEncoderMem(true),
		// An empty text still gets a frame: a NULL column means "not
		// written compressed", and prune reads every frame's size.
		zstd.WithZeroFrames(true)}
	if d != nil {
		opts = append(opts, zstd.WithEncoderDict(d))
	}
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		panic(fmt.Sprintf("zstd encoder: %v", err)) // dictionaries are checked before use
	}
	return e
}

// OpenDicts loads the database's dictionaries (migration 014 must be
// applied) and starts collecting samples for the kinds without one. A
// driver calls it once after Migrate; CloseCommits ends it.
func (c *Core) OpenDicts(ctx context.Context, cfg DictConfig) error {
	if cfg.Samples == 0 {
		cfg.Samples = defaultDictSamples
	}
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = defaultDictSize
	}
	s := &dictSet{core: c, cfg: cfg, enc: map[string]*atomic.Pointer[zstd.Encoder]{},
		samples: map[string][][]byte{}, size: map[string]int{}, done: map[string]bool{}}
	for _, k := range dictKinds {
		s.enc[k] = &atomic.Pointer[zstd.Encoder]{}
	}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := s.load(ctx); err != nil {
		s.cancel()
		return err
	}
	decoders.mu.Lock()
	decoders.sets[s] = struct{}{}
	decoders.mu.Unlock()
	c.dicts = s
	return nil
}

// closeDicts stops training and forgets the database's dictionary set
// (the decoder keeps the dictionaries: rows read later may still need
// them, and they are small).
func (c *Core) closeDicts() {
	s := c.dicts
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	decoders.mu.Lock()
	delete(decoders.sets, s)
	decoders.mu.Unlock()
}

// load reads the database's dictionaries into the decoder and takes, per
// kind, the newest generation for encoding.
func (s *dictSet) load(ctx context.Context) error {
	type row struct {
		kind string
		d    []byte
	}
	all := map[uint32][]byte{}
	newest := map[string]row{}
	gen := map[string]int{}
	rows, err := s.core.E.Read().Query(ctx, `SELECT id, kind, generation, dict FROM zstd_dicts ORDER BY id`)
	err = each(rows, err, func(r Rows) error {
		var id int64
		var kind string
		var g int
		var d []byte
		if err := r.Scan(&id, &kind, &g, &d); err != nil {
			return err
		}
		if err := checkDict(id, d); err != nil {
			return err
		}
		all[uint32(id)] = d
		if g >= gen[kind] {
			gen[kind], newest[kind] = g, row{kind, d}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load zstd dictionaries: %w", err)
	}
	if err := decoders.add(all); err != nil {
		return fmt.Errorf("load zstd dictionaries: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for kind, r := range newest {
		p, ok := s.enc[kind]
		if !ok {
			continue // a kind this invx does not write
		}
		if p.Load() == nil {
			p.Store(newEncoder(r.d))
		}
		s.done[kind] = true
		s.samples[kind] = nil
	}
	return nil
}

// encoder is the encoder for a kind; b is the value about to be written,
// kept as a training sample while the kind has no dictionary.
func (s *dictSet) encoder(kind string, b []byte) *zstd.Encoder {
	if e := s.enc[kind].Load(); e != nil {
		return e
	}
	if s.cfg.Samples > 0 {
		s.sample(kind, b)
	}
	return plainEnc()
}

func (s *dictSet) sample(kind string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done[kind] || s.closed || len(b) < minSample {
		return
	}
	b = bytes.Clone(b[:min(len(b), sampleCap)])
	s.samples[kind] = append(s.samples[kind], b)
	s.size[kind] += len(b)
	if len(s.samples[kind]) < s.cfg.Samples && s.size[kind] < sampleBudget {
		return
	}
	samples := s.samples[kind]
	s.samples[kind], s.done[kind] = nil, true
	if s.size[kind] < minTrain {
		return // values this small gain little from a dictionary
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		// A failed training leaves the kind without a dictionary for this
		// process: rows stay readable, only larger. Nothing else to do.
		_ = s.train(kind, samples)
	}()
}

// train builds a kind's dictionary from samples and stores it, unless
// another process stored one first; either way, the stored one is used.
func (s *dictSet) train(kind string, samples [][]byte) error {
	d, err := trainDict(samples, s.cfg.MaxSize)
	if err != nil {
		return fmt.Errorf("train %s dictionary: %w", kind, err)
	}
	id := int64(binary.LittleEndian.Uint32(d[4:8]))
	_, now, err := s.core.E.Clock(s.ctx, time.Now())
	if err != nil {
		return err
	}
	if err := s.core.write(s.ctx, regionDict, func(tx Tx) error {
		_, err := tx.Exec(s.ctx, `INSERT INTO zstd_dicts (id, kind, generation, dict, samples, created_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, id, kind, dictGeneration, d, len(samples), now)
		return err
	}); err != nil {
		return fmt.Errorf("store %s dictionary: %w", kind, err)
	}
	return s.load(s.ctx)
}

// encoderFor is the encoder a value of kind is written with: the
// database's dictionary of the kind when it has one.
func (c *Core) encoderFor(kind string, b []byte) *zstd.Encoder {
	if c.dicts == nil {
		return plainEnc()
	}
	return c.dicts.encoder(kind, b)
}
