package replay_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	v1, v2 := version(t, schema.V1), version(t, schema.V2)
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
		{"two versions in one folder", func(t *testing.T, dir string) {
			recordOne(t, dir, "k1", v1)
			writeRecord(t, dir, "k2", schema.V2)
		}, "", "holds answers for schemas invoice-summary-v1 and invoice-v2"},
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
		// settings, when set, is the invx-eval.json of the folder.
		settings string
		where    string
	}{
		{"v2 recording, v1 asked", v2, v1, "", ""},
		{"v1 recording, v2 asked", v1, v2, "", ""},
		{"v1 eval recording, v2 asked", v1, v2, `{"schema_version":"invoice-summary-v1"}`, ""},
		// Settings that contradict an answer's own version: the answer's
		// file is named.
		{"answer of another version than the settings", v1, v2, `{"schema_version":"invoice-v2"}`, filepath.Join("k1", "1.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "rec")
			recordOne(t, dir, "k1", tc.recordedFor)
			if tc.settings != "" {
				writeFile(t, filepath.Join(dir, "invx-eval.json"), tc.settings)
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
