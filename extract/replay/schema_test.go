package replay_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/replay"
	"github.com/invx/invx/schema"
)

func version(t *testing.T, name string) *schema.Version {
	t.Helper()
	v, err := schema.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// recordOne records one answer of job key for version v into dir through a
// Recorder, as invx run --record does.
func recordOne(t *testing.T, dir, key string, v *schema.Version) {
	t.Helper()
	inner := &fakeProvider{ExtractFunc: func(*extract.Request) (*extract.Response, error) {
		return &extract.Response{Output: []byte(`{"answer":"` + key + `"}`), Model: "m"}, nil
	}}
	rec, err := replay.NewRecorder(inner, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Extract(context.Background(), &extract.Request{JobKey: key, Attempt: 1, Schema: v}); err != nil {
		t.Fatal(err)
	}
}

// writeRecord writes a recorded answer of job key for version straight
// into dir, as an older invx or a hand edit could leave it.
func writeRecord(t *testing.T, dir, key, version string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, key, "1.json"), `{"job_key":"`+key+`","attempt":1,"schema_version":"`+version+
		`","provider":"p","model":"","input_tokens":0,"output_tokens":0,"request_id":"","http_status":200,"output":"{}","error":null}`)
}

func TestRecordedSchema(t *testing.T) {
	t.Parallel()
	v2 := version(t, schema.V2)
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, dir string)
		want    string
		wantErr string
	}{
		{"empty folder", func(*testing.T, string) {}, "", ""},
		{"run --record of v2", func(t *testing.T, dir string) {
			recordOne(t, dir, "k1", v2)
			recordOne(t, dir, "k2", v2)
		}, schema.V2, ""},
		{"eval --record settings win", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "invx-eval.json"), `{"suite":"s","schema_version":"invoice-summary-v1"}`)
			writeRecord(t, dir, "k1", schema.V2)
		}, schema.V1, ""},
		{"answers recorded before versions were", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "k1", "1.json"),
				`{"job_key":"k1","attempt":1,"provider":"p","model":"","input_tokens":0,"output_tokens":0,"request_id":"","http_status":200,"output":"{}","error":null}`)
		}, "", ""},
		// A folder recorded before the manifest, or mixed by hand: the
		// answers are scanned.
		{"two versions in one folder", func(t *testing.T, dir string) {
			writeRecord(t, dir, "k1", schema.V1)
			writeRecord(t, dir, "k2", schema.V2)
		}, "", "holds answers for schemas invoice-summary-v1 and invoice-v2"},
		// The Recorder's manifest names the version: no answer is read.
		{"run --record manifest, answers gone", func(t *testing.T, dir string) {
			recordOne(t, dir, "k1", v2)
			if err := os.RemoveAll(filepath.Join(dir, "k1")); err != nil {
				t.Fatal(err)
			}
		}, schema.V2, ""},
		{"eval --record settings win over the manifest", func(t *testing.T, dir string) {
			recordOne(t, dir, "k1", v2)
			writeFile(t, filepath.Join(dir, "invx-eval.json"), `{"schema_version":"invoice-summary-v1"}`)
		}, schema.V1, ""},
		{"corrupt manifest", func(t *testing.T, dir string) {
			writeRecord(t, dir, "k1", schema.V2)
			writeFile(t, filepath.Join(dir, "invx-recording.json"), `{"schema_version":`)
		}, "", "invx-recording.json: unexpected end of JSON input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "rec")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			got, err := replay.RecordedSchema(dir)
			if got != tc.want {
				t.Errorf("RecordedSchema = %q, want %q", got, tc.want)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error = %v, want one containing %q", err, tc.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), dir)) {
				t.Errorf("error %q should be one line naming %s", err, dir)
			}
		})
	}
}

// A recording answers only for the version it was made with; any other
// version stops the run with one line naming the folder and both versions.
func TestReplayRefusesOtherSchema(t *testing.T) {
	t.Parallel()
	v1, v2 := version(t, schema.V1), version(t, schema.V2)
	for _, tc := range []struct {
		name        string
		recordedFor *schema.Version
		askedFor    *schema.Version
		// settings, when set, is the invx-eval.json of the folder;
		// manifest replaces the Recorder's invx-recording.json.
		settings, manifest string
		where              string
	}{
		{"v2 recording, v1 asked", v2, v1, "", "", ""},
		{"v1 recording, v2 asked", v1, v2, "", "", ""},
		{"v1 eval recording, v2 asked", v1, v2, `{"schema_version":"invoice-summary-v1"}`, "", ""},
		// Settings that contradict an answer's own version: the answer's
		// file is named.
		{"answer of another version than the settings", v1, v2, `{"schema_version":"invoice-v2"}`, "", filepath.Join("k1", "1.json")},
		// A folder mixed by hand after the Recorder wrote its manifest:
		// not seen up front, but the answer is never validated as the
		// other version.
		{"answer of another version than the manifest", v1, v2, "", `{"schema_version":"invoice-v2"}`, filepath.Join("k1", "1.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "rec")
			recordOne(t, dir, "k1", tc.recordedFor)
			if tc.settings != "" {
				writeFile(t, filepath.Join(dir, "invx-eval.json"), tc.settings)
			}
			if tc.manifest != "" {
				writeFile(t, filepath.Join(dir, "invx-recording.json"), tc.manifest)
			}
			p, err := replay.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Extract(context.Background(), &extract.Request{JobKey: "k1", Attempt: 1, Schema: tc.askedFor})
			var pe *extract.ProviderError
			if !errors.As(err, &pe) || resp != nil {
				t.Fatalf("Extract = %v, %v; want no answer and a ProviderError", resp, err)
			}
			if pe.Class != extract.ClassAuth || pe.Category != "config" {
				t.Errorf("class %s category %q, want auth/config (stop the run)", pe.Class, pe.Category)
			}
			got, want := tc.recordedFor.Name, tc.askedFor.Name
			if !strings.Contains(pe.Msg, filepath.Join(dir, tc.where)) || strings.Contains(pe.Msg, "\n") ||
				!strings.Contains(pe.Msg, "made with schema "+got+", not "+want) {
				t.Errorf("message %q should be one line naming %s and both versions", pe.Msg, filepath.Join(dir, tc.where))
			}
		})
	}
	// The same folder answers for its own version.
	dir := filepath.Join(t.TempDir(), "rec")
	recordOne(t, dir, "k1", v2)
	p, err := replay.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Extract(context.Background(), &extract.Request{JobKey: "k1", Attempt: 1, Schema: v2})
	if err != nil || resp == nil || string(resp.Output) != `{"answer":"k1"}` {
		t.Fatalf("replay for its own version: %v, %v", resp, err)
	}
}

// A Recorder never mixes versions in one folder: asked to record another
// version than the folder holds, it stops the run before calling the
// provider, naming the folder and both versions.
func TestRecorderKeepsOneSchema(t *testing.T) {
	t.Parallel()
	v1, v2 := version(t, schema.V1), version(t, schema.V2)
	dir := filepath.Join(t.TempDir(), "rec")
	recordOne(t, dir, "k1", v1)
	inner := &fakeProvider{ExtractFunc: func(*extract.Request) (*extract.Response, error) {
		return &extract.Response{Output: []byte(`{}`)}, nil
	}}
	rec, err := replay.NewRecorder(inner, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rec.Extract(context.Background(), &extract.Request{JobKey: "k2", Attempt: 1, Schema: v2})
	var pe *extract.ProviderError
	if !errors.As(err, &pe) || pe.Class != extract.ClassAuth ||
		!strings.Contains(pe.Msg, dir) || !strings.Contains(pe.Msg, "schema "+schema.V1+", not "+schema.V2) {
		t.Fatalf("recording v2 into a v1 folder: %v, want an auth/config error naming %s and both versions", err, dir)
	}
	if n := inner.calls.Load(); n != 0 {
		t.Errorf("the provider was called %d times for an answer that could not be recorded", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "k2")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("k2 was recorded into the v1 folder (stat: %v)", err)
	}
	if _, err := rec.Extract(context.Background(), &extract.Request{JobKey: "k3", Attempt: 1, Schema: v1}); err != nil {
		t.Errorf("recording v1 into the v1 folder: %v", err)
	}
}

// Recorders that start together on an empty folder (one per process, as
// two invx run --record would) agree on one version through the manifest:
// every answer of the other version is refused before its provider call,
// and the folder never mixes versions.
func TestRecordersAgreeOnOneSchema(t *testing.T) {
	t.Parallel()
	versions := []*schema.Version{version(t, schema.V1), version(t, schema.V2)}
	dir := filepath.Join(t.TempDir(), "rec")
	type outcome struct {
		version string
		err     error
		calls   int64
	}
	const n = 8
	recs := make([]*replay.Recorder, n)
	inners := make([]*fakeProvider, n)
	for i := range recs {
		inners[i] = &fakeProvider{ExtractFunc: func(*extract.Request) (*extract.Response, error) {
			return &extract.Response{Output: []byte(`{}`)}, nil
		}}
		r, err := replay.NewRecorder(inners[i], dir)
		if err != nil {
			t.Fatal(err)
		}
		recs[i] = r
	}
	out := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range recs {
		wg.Go(func() {
			v := versions[i%2]
			_, err := recs[i].Extract(context.Background(), &extract.Request{JobKey: fmt.Sprintf("k%d", i), Attempt: 1, Schema: v})
			out[i] = outcome{v.Name, err, inners[i].calls.Load()}
		})
	}
	wg.Wait()
	won, err := replay.RecordedSchema(dir)
	if err != nil || won == "" {
		t.Fatalf("RecordedSchema = %q, %v; want one version", won, err)
	}
	for i, o := range out {
		_, statErr := os.Stat(filepath.Join(dir, fmt.Sprintf("k%d", i), "1.json"))
		if o.version == won {
			if o.err != nil || statErr != nil {
				t.Errorf("recorder %d (%s, the folder's version): %v, answer file: %v", i, o.version, o.err, statErr)
			}
			continue
		}
		var pe *extract.ProviderError
		if !errors.As(o.err, &pe) || pe.Class != extract.ClassAuth || !strings.Contains(pe.Msg, dir) || strings.Contains(pe.Msg, "\n") {
			t.Errorf("recorder %d (%s into a %s folder): %v; want one auth/config line naming %s", i, o.version, won, o.err, dir)
		}
		if o.calls != 0 || !errors.Is(statErr, os.ErrNotExist) {
			t.Errorf("recorder %d (%s into a %s folder): %d provider calls, answer file: %v", i, o.version, won, o.calls, statErr)
		}
	}
}
