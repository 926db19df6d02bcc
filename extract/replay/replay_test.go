package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/replay"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// fakeProvider is a function-field fake that counts its calls.
type fakeProvider struct {
	calls       atomic.Int64
	ExtractFunc func(req *extract.Request) (*extract.Response, error)
}

func (*fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Extract(_ context.Context, req *extract.Request) (*extract.Response, error) {
	p.calls.Add(1)
	return p.ExtractFunc(req)
}

// Two documents: the first is answered without a title, then repaired; the
// second meets a 503, then succeeds.
var (
	repairText    = extracttest.Invoice
	transientText = extracttest.Invoice + "Reference: second delivery\n"
	badAnswer     = strings.Replace(extracttest.ValidAnswer, `"title":"Invoice AT-2026-0042 from Acme Tools Ltd",`, "", 1)
)

func docs() []extract.Found {
	return []extract.Found{extracttest.Doc("a.txt", repairText), extracttest.Doc("b.txt", transientText)}
}

func model() *fakeProvider {
	return &fakeProvider{ExtractFunc: func(req *extract.Request) (*extract.Response, error) {
		resp := &extract.Response{Output: []byte(extracttest.ValidAnswer), Model: "fake-1", InputTokens: 400,
			OutputTokens: 120, RequestID: "req-" + req.JobKey[:6] + "-" + string(rune('0'+req.Attempt)), HTTPStatus: 200}
		switch {
		case req.Text == repairText && req.Feedback == nil:
			resp.Output = []byte(badAnswer)
		case req.Text == transientText && req.Attempt == 1:
			return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: 503, RetryAfter: 1500 * time.Millisecond,
				Msg: "overloaded", Err: errors.New("body mentions sk-secret-key")}
		}
		return resp, nil
	}}
}

func newRunner(t *testing.T, env *extracttest.Env, p extract.Provider) *extract.Runner {
	t.Helper()
	r := env.Runner(p)
	extracttest.NewFakeClock(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)).Use(r)
	return r
}

// record runs docs through a Recorder around inner into a new folder.
func record(t *testing.T, inner extract.Provider, tune func(*extract.Runner), docs ...extract.Found) (string, *extracttest.Env, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "recording")
	rec, err := replay.NewRecorder(inner, dir)
	if err != nil {
		t.Fatal(err)
	}
	env := extracttest.New(t)
	r := newRunner(t, env, rec)
	if tune != nil {
		tune(r)
	}
	if _, err := env.Run(t, r, docs...); err != nil {
		t.Fatalf("record: Work: %v", err)
	}
	return dir, env, r.Keys()
}

// play runs docs through a replay Provider on dir in a new store.
func play(t *testing.T, dir string, docs ...extract.Found) *extracttest.Env {
	t.Helper()
	p, err := replay.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := extracttest.New(t)
	if _, err := env.Run(t, newRunner(t, env, p), docs...); err != nil {
		t.Fatalf("replay: Work: %v", err)
	}
	return env
}

// attempts are the attempt rows without what differs between two runs by
// design (the run, durations, jittered delays).
func attempts(t *testing.T, env *extracttest.Env) []extracttest.Attempt {
	t.Helper()
	out := env.Attempts(t)
	for i := range out {
		out[i].NextDelayMS = 0
	}
	return out
}

func results(t *testing.T, env *extracttest.Env) map[string]string {
	t.Helper()
	rows, err := sqlitetest.ReadOnly(t, env.Store.Path()).Query(`SELECT lower(hex(job_key)), result FROM results`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

func TestRecordAndReplay(t *testing.T) {
	t.Parallel()
	inner := model()
	dir, recEnv, keys := record(t, inner, nil, docs()...)
	recorded := inner.calls.Load()
	if recorded != 4 {
		t.Fatalf("inner provider called %d times while recording, want 4", recorded)
	}
	if diff := cmp.Diff([]string{"succeeded", "succeeded"}, recEnv.JobStates(t)); diff != "" {
		t.Fatalf("recorded job states (-want +got):\n%s", diff)
	}

	// The folder layout and one error file, as a reviewer would read them.
	// Recordings quote model output, so like the database they are the
	// owner's only: folders 0700, files 0600.
	wantMode(t, dir, 0o700)
	for _, k := range keys {
		wantMode(t, filepath.Join(dir, k), 0o700)
		for _, n := range []string{"1.json", "2.json"} {
			wantMode(t, filepath.Join(dir, k, n), 0o600)
		}
		if entries, err := os.ReadDir(filepath.Join(dir, k)); err != nil || len(entries) != 2 {
			t.Errorf("%s holds %d entries (%v), want 2 (no temporary files left)", k, len(entries), err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, keys[1], "1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-secret") {
		t.Errorf("recording keeps the wrapped error's text: %s", b)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"job_key": keys[1], "attempt": 1.0, "schema_version": schema.V1, "provider": "fake", "model": "", "input_tokens": 0.0,
		"output_tokens": 0.0, "request_id": "", "http_status": 0.0, "output": nil,
		"error": map[string]any{"class": "transient", "status": 503.0, "category": "", "message": "overloaded", "retry_after_ms": 1500.0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s/1.json (-want +got):\n%s", keys[1], diff)
	}

	playEnv := play(t, dir, docs()...)
	if n := inner.calls.Load(); n != recorded {
		t.Errorf("replay called the inner provider %d times", n-recorded)
	}
	if diff := cmp.Diff(recEnv.JobStates(t), playEnv.JobStates(t)); diff != "" {
		t.Errorf("job states (-recorded +replayed):\n%s", diff)
	}
	wantAttempts := attempts(t, recEnv)
	if diff := cmp.Diff(wantAttempts, attempts(t, playEnv)); diff != "" {
		t.Errorf("attempts (-recorded +replayed):\n%s", diff)
	}
	var outcomes []string
	for _, a := range wantAttempts {
		outcomes = append(outcomes, a.Outcome+"/"+a.Category)
	}
	if diff := cmp.Diff([]string{"rejected/display", "succeeded/", "retry/", "succeeded/"}, outcomes); diff != "" {
		t.Errorf("recorded outcomes (-want +got):\n%s", diff)
	}
	wantResults := results(t, recEnv)
	if len(wantResults) != 2 {
		t.Fatalf("recorded %d results, want 2", len(wantResults))
	}
	if diff := cmp.Diff(wantResults, results(t, playEnv)); diff != "" {
		t.Errorf("results (-recorded +replayed):\n%s", diff)
	}
	if n := playEnv.Count(t, `SELECT count(*) FROM attempts WHERE provider = 'replay'`); n != 4 {
		t.Errorf("%d replayed attempts name the replay provider, want 4", n)
	}
}

func TestReplayMissingJob(t *testing.T) {
	t.Parallel()
	dir, _, _ := record(t, model(), nil, docs()[0])
	other := extracttest.Doc("c.txt", extracttest.Invoice+"Never recorded\n")
	env := play(t, dir, other)
	if diff := cmp.Diff([]string{"failed"}, env.JobStates(t)); diff != "" {
		t.Errorf("job states (-want +got):\n%s", diff)
	}
	a := env.Attempts(t)
	key, err := extract.JobKey("default", extract.Transformation, extracttest.V1().Name, other.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || a[0].Outcome != "failed" || a[0].Class != "permanent" || a[0].Category != "no_recording" ||
		!strings.Contains(a[0].Message, "no recording for job "+key+" in "+dir) {
		t.Errorf("attempts = %+v", a)
	}
}

func TestReplayPastTheRecording(t *testing.T) {
	t.Parallel()
	// Recorded with one attempt allowed: the 503 is all there is.
	dir, _, keys := record(t, model(), func(r *extract.Runner) { r.MaxAttempts = 1 }, docs()[1])
	env := play(t, dir, docs()[1])
	a := env.Attempts(t)
	if len(a) != 2 || a[0].Outcome != "retry" || a[1].Outcome != "failed" || a[1].Category != "no_recording" ||
		!strings.Contains(a[1].Message, "no recording for attempt 2 of job "+keys[0]) {
		t.Errorf("attempts = %+v", a)
	}
}

func TestReplayCorruptFile(t *testing.T) {
	t.Parallel()
	dir, _, keys := record(t, model(), nil, docs()[0])
	path := filepath.Join(dir, keys[0], "1.json")
	if err := os.WriteFile(path, []byte(`{"job_key": "`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := play(t, dir, docs()[0])
	a := env.Attempts(t)
	if len(a) != 1 || a[0].Outcome != "failed" || a[0].Category != "corrupt_recording" ||
		!strings.Contains(a[0].Message, "corrupt recording "+path+": ") {
		t.Errorf("attempts = %+v", a)
	}
}

// TestReplayValidation checks that a recording file is read strictly.
func TestReplayValidation(t *testing.T) {
	t.Parallel()
	const key = "0123abcd"
	good := `{"job_key":"0123abcd","attempt":1,"provider":"ollama","model":"m","input_tokens":1,"output_tokens":2,` +
		`"request_id":"","http_status":200,"output":"{}","error":null}`
	tests := []struct {
		name, body, want string
	}{
		{"not JSON", "garbage", "not a JSON object"},
		{"unknown field", strings.Replace(good, `"model"`, `"modle"`, 1), `unknown field "modle"`},
		{"trailing data", good + ` {}`, "data after the JSON object"},
		{"null", "null", `no "job_key" key`},
		{"array", "[]", "not a JSON object"},
		{"missing output key", strings.Replace(good, `,"output":"{}"`, "", 1), `no "output" key`},
		{"wrong job key", strings.Replace(good, "0123abcd", "ffff", 1), "does not match its folder"},
		{"wrong attempt", strings.Replace(good, `"attempt":1`, `"attempt":2`, 1), "does not match its file name"},
		{"neither output nor error", strings.Replace(good, `"output":"{}"`, `"output":null`, 1), "neither an output nor an error"},
		{"bad class", strings.Replace(good, `"error":null`, `"error":{"class":"oops","status":0,"category":"","message":"","retry_after_ms":0}`, 1), `error.class "oops"`},
		{"bad encoding", strings.Replace(good, `"output":"{}"`, `"output":"{}","output_encoding":"hex"`, 1), "output_encoding"},
		{"bad base64", strings.Replace(good, `"output":"{}"`, `"output":"!!","output_encoding":"base64"`, 1), "not valid base64"},
		{"wrong type", strings.Replace(good, `"attempt":1`, `"attempt":"1"`, 1), "cannot unmarshal"},
		// The file is read by system calls (readFile): its read errors
		// read as before, without the path twice.
		{"a folder, not a file", "<folder>", filepath.Join(key, "1.json") + ": is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, key, "1.json")
			if tt.body == "<folder>" {
				if err := os.MkdirAll(path, 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, path, tt.body)
			}
			p, err := replay.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Extract(context.Background(), &extract.Request{JobKey: key, Attempt: 1})
			var pe *extract.ProviderError
			if !errors.As(err, &pe) || pe.Class != extract.ClassPermanent || pe.Category != "corrupt_recording" ||
				!strings.Contains(pe.Msg, path) || !strings.Contains(pe.Msg, tt.want) {
				t.Errorf("err = %v, want a corrupt_recording naming %s and %q", err, path, tt.want)
			}
		})
	}
	// The good file replays.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, key, "1.json"), good)
	p, err := replay.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Extract(context.Background(), &extract.Request{JobKey: key, Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := &extract.Response{Output: []byte("{}"), Model: "m", InputTokens: 1, OutputTokens: 2, HTTPStatus: 200}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	// A gap names what was recorded.
	writeFile(t, filepath.Join(dir, key, "3.json"), strings.Replace(good, `"attempt":1`, `"attempt":3`, 1))
	_, err = p.Extract(context.Background(), &extract.Request{JobKey: key, Attempt: 2})
	if err == nil || !strings.Contains(err.Error(), "no recording for attempt 2 of job 0123abcd (recorded attempts: 1, 3)") {
		t.Errorf("gap: err = %v", err)
	}
}

// TestJobKeyCannotEscape refuses a job key that would climb out of the
// recording folder, on replay and on record. A valid recording waits at the
// escaped path, so a missing check shows as a replayed answer or a file
// written outside the folder, not as a "no recording" that looks the same
// as a refusal.
func TestJobKeyCannotEscape(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"../x", "..", "a/../../x", "./../x"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			parent := t.TempDir()
			dir := filepath.Join(parent, "rec")
			outside := filepath.Join(dir, key, "1.json")
			body, err := json.Marshal(map[string]any{"job_key": key, "attempt": 1, "provider": "fake", "model": "m",
				"input_tokens": 1, "output_tokens": 2, "request_id": "", "http_status": 200, "output": "{}", "error": nil})
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, outside, string(body))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p, err := replay.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			wantMsg := fmt.Sprintf("job key %q cannot name a recording folder", key)
			resp, err := p.Extract(context.Background(), &extract.Request{JobKey: key, Attempt: 1})
			var pe *extract.ProviderError
			if !errors.As(err, &pe) || pe.Class != extract.ClassPermanent || pe.Category != "no_recording" || pe.Msg != wantMsg {
				t.Errorf("replay: resp %v, err %v; want a permanent no_recording %q", resp, err, wantMsg)
			}

			// A fresh parent: the recorder must not find the file above.
			recDir := filepath.Join(t.TempDir(), "rec")
			inner := &fakeProvider{ExtractFunc: func(*extract.Request) (*extract.Response, error) {
				return &extract.Response{Output: []byte(extracttest.ValidAnswer), Model: "m"}, nil
			}}
			rec, err := replay.NewRecorder(inner, recDir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = rec.Extract(context.Background(), &extract.Request{JobKey: key, Attempt: 1})
			if !errors.As(err, &pe) || pe.Class != extract.ClassAuth || !strings.Contains(pe.Msg, wantMsg) {
				t.Errorf("record: err %v, want an auth-class refusal containing %q", err, wantMsg)
			}
			if _, err := os.Stat(filepath.Join(recDir, key, "1.json")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("record wrote outside its folder: stat %v", err)
			}
		})
	}
}

// writeFile writes body to path, creating its folder.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRecordRoundTrip replays single calls exactly: bytes that are not
// UTF-8, a response that comes with an error, and every error field.
func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		resp *extract.Response
		err  error
	}{
		{"not utf-8", &extract.Response{Output: []byte("{\"title\":\"\xff\"}"), Model: "m"}, nil},
		{"truncated with output", &extract.Response{Output: []byte(`{"ti`), Model: "m", InputTokens: 3, OutputTokens: 4096, HTTPStatus: 200},
			&extract.ProviderError{Class: extract.ClassRejected, Status: 200, Category: "truncated", Msg: "cut off"}},
		{"rate limited", nil, &extract.ProviderError{Class: extract.ClassRateLimited, Status: 429, RetryAfter: 2 * time.Second, Msg: "slow down"}},
		{"auth", nil, &extract.ProviderError{Class: extract.ClassAuth, Status: 401, Category: "auth", Msg: "OPENAI_API_KEY rejected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			inner := &fakeProvider{ExtractFunc: func(*extract.Request) (*extract.Response, error) { return tt.resp, tt.err }}
			rec, err := replay.NewRecorder(inner, dir)
			if err != nil {
				t.Fatal(err)
			}
			req := &extract.Request{JobKey: "abc", Attempt: 1}
			resp1, err1 := rec.Extract(context.Background(), req)
			p, err := replay.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			resp2, err2 := p.Extract(context.Background(), req)
			if diff := cmp.Diff(resp1, resp2); diff != "" {
				t.Errorf("response (-recorded +replayed):\n%s", diff)
			}
			if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
				t.Errorf("error: recorded %v, replayed %v", err1, err2)
			}
			var pe1, pe2 *extract.ProviderError
			if errors.As(err1, &pe1) && errors.As(err2, &pe2) &&
				(pe1.Class != pe2.Class || pe1.Category != pe2.Category || pe1.RetryAfter != pe2.RetryAfter) {
				t.Errorf("error fields: recorded %+v, replayed %+v", pe1, pe2)
			}
		})
	}
}

func TestRecorderWriteFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inner := &fakeProvider{ExtractFunc: func(*extract.Request) (*extract.Response, error) {
		return &extract.Response{Output: []byte("{}")}, nil
	}}
	rec, err := replay.NewRecorder(inner, dir)
	if err != nil {
		t.Fatal(err)
	}
	// A file where the job's folder should be.
	if err := os.WriteFile(filepath.Join(dir, "abc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = rec.Extract(context.Background(), &extract.Request{JobKey: "abc", Attempt: 1})
	var pe *extract.ProviderError
	if !errors.As(err, &pe) || pe.Class != extract.ClassAuth || !strings.Contains(pe.Msg, "record answer for job abc attempt 1") {
		t.Errorf("err = %v, want an auth-class recording failure", err)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, "")
	for _, d := range []string{filepath.Join(dir, "missing"), file} {
		if _, err := replay.New(d); err == nil || !strings.Contains(err.Error(), d) {
			t.Errorf("New(%s) = %v, want an error naming it", d, err)
		}
	}
	p, err := replay.New(dir)
	if err != nil || p.Name() != "replay" {
		t.Fatalf("New = %v, %v", p, err)
	}
	if _, err := replay.NewRecorder(model(), filepath.Join(file, "sub")); err == nil {
		t.Error("NewRecorder under a file succeeded")
	}
	rec, err := replay.NewRecorder(model(), filepath.Join(dir, "new", "folder"))
	if err != nil || rec.Name() != "fake" {
		t.Fatalf("NewRecorder = %v, %v", rec, err)
	}
}

// wantMode checks the permission bits of path.
func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s mode = %v, want %v", path, got, want)
	}
}
