package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/invx/invx/extract"
)

// wirePart is one part of a multipart body, in comparable form.
type wirePart struct {
	Header http.Header
	Body   string
}

// seenRequest is a sentRequest with a multipart body taken apart: its
// boundary is random, so the parts are what can be compared.
type seenRequest struct {
	Sent  sentRequest
	Parts []wirePart
}

// recorder is a loopback server that records every request and answers
// each with answer.
func recorder(t *testing.T, answer http.HandlerFunc) (*httptest.Server, func() []seenRequest) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []seenRequest
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read request body: %v", err)
		}
		s := seenRequest{Sent: sentRequest{Method: r.Method, URI: r.RequestURI, Header: r.Header.Clone(),
			Length: r.ContentLength, Chunked: len(r.TransferEncoding) > 0, Body: string(b)}}
		if mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
			mr := multipart.NewReader(bytes.NewReader(b), params["boundary"])
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				pb, _ := io.ReadAll(p)
				s.Parts = append(s.Parts, wirePart{Header: http.Header(p.Header), Body: string(pb)})
			}
			s.Sent.Header.Set("Content-Type", "multipart/form-data; boundary=(random)")
			s.Sent.Body = ""
			// The boundary's length is the SDK's and ours alike.
		}
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

const batchJSON = `{"id":"batch_1","object":"batch","endpoint":"/v1/chat/completions","input_file_id":"file-1",` +
	`"status":"failed","output_file_id":null,"error_file_id":"file-err","created_at":1760000000,` +
	`"metadata":{"invx_batch":"7"},"request_counts":{"total":2,"completed":1,"failed":1},` +
	`"errors":{"object":"list","data":[{"code":"invalid_json","message":"bad line","param":null,"line":2}]}}`

// TestBatchCallsMatchSDK makes each batch call through openai-go's Files
// and Batches services and through the adapter, and wants the same
// requests on the wire (method, target, every header, body or multipart
// parts) and the same fields read from the answers.
func TestBatchCallsMatchSDK(t *testing.T) {
	t.Parallel()
	srv, seen := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/files":
			_, _ = io.WriteString(w, `{"id":"file-1","object":"file","bytes":3,"filename":"x.jsonl","purpose":"batch","status":"processed"}`)
		case strings.HasSuffix(r.URL.Path, "/content"):
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = io.WriteString(w, "{\"custom_id\":\"a\"}\n")
		case r.URL.Path == "/v1/batches" && r.Method == http.MethodGet && r.URL.Query().Get("after") == "":
			_, _ = io.WriteString(w, `{"object":"list","data":[`+batchJSON+`],"has_more":true}`)
		case r.URL.Path == "/v1/batches" && r.Method == http.MethodGet:
			_, _ = io.WriteString(w, `{"object":"list","data":[],"has_more":false}`)
		default:
			_, _ = io.WriteString(w, batchJSON)
		}
	})
	p, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "m-1"})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Batch()
	files, batches := oai.NewFileService(sdkOptions(p)...), oai.NewBatchService(sdkOptions(p)...)
	ctx := context.Background()
	data := []byte("{\"custom_id\":\"a\"}\n")
	calls := []struct {
		name      string
		sdk, ours func() (any, error)
	}{
		{"upload", func() (any, error) {
			f, err := files.New(ctx, oai.FileNewParams{File: oai.File(bytes.NewReader(data), "invx-batch-7.jsonl", "application/jsonl"),
				Purpose: oai.FilePurposeBatch}, option.WithRequestTimeout(transferTimeout))
			if err != nil {
				return nil, err
			}
			return f.ID, nil
		}, func() (any, error) { return c.upload(ctx, "invx-batch-7.jsonl", data) }},
		{"create", func() (any, error) {
			b, err := batches.New(ctx, oai.BatchNewParams{InputFileID: "file-1", Endpoint: oai.BatchNewParamsEndpointV1ChatCompletions,
				CompletionWindow: oai.BatchNewParamsCompletionWindow24h, Metadata: shared.Metadata{MetadataKey: "7"}})
			return sdkInfo(c, b), err
		}, func() (any, error) {
			b, err := c.create(ctx, "file-1", "7")
			return c.info(b), err
		}},
		{"retrieve", func() (any, error) {
			b, err := batches.Get(ctx, "batch_1")
			return sdkInfo(c, b), err
		}, func() (any, error) {
			b, err := c.get(ctx, "batch_1", false)
			return c.info(b), err
		}},
		{"cancel", func() (any, error) {
			b, err := batches.Cancel(ctx, "batch_1")
			return sdkInfo(c, b), err
		}, func() (any, error) {
			b, err := c.get(ctx, "batch_1", true)
			return c.info(b), err
		}},
		{"list", func() (any, error) {
			var ids []string
			pager := batches.ListAutoPaging(ctx, oai.BatchListParams{Limit: oai.Int(100)})
			for pager.Next() {
				ids = append(ids, pager.Current().ID)
			}
			return ids, pager.Err()
		}, func() (any, error) {
			in, ok, err := c.Find(ctx, "no such tag", time.Unix(0, 0), 2)
			if ok {
				return nil, errors.New("found " + in.RemoteID)
			}
			return []string{"batch_1"}, err
		}},
		{"content", func() (any, error) {
			res, err := files.Content(ctx, "file-err", option.WithRequestTimeout(transferTimeout))
			if err != nil {
				return nil, err
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			return string(b), err
		}, func() (any, error) {
			var lines []string
			err := c.readFile(ctx, "batch_1", "file-err", func(l extract.BatchLine) error {
				lines = append(lines, l.CustomID)
				return nil
			})
			if len(lines) == 1 && lines[0] == "a" {
				return string(data), err
			}
			return lines, err
		}},
	}
	for _, call := range calls {
		before := len(seen())
		want, err := call.sdk()
		if err != nil {
			t.Fatalf("%s through the SDK: %v", call.name, err)
		}
		mid := len(seen())
		got, err := call.ours()
		if err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: answer read differently (-sdk +ours):\n%s", call.name, d)
		}
		all := seen()
		sdkReqs, ours := all[before:mid], all[mid:]
		if d := cmp.Diff(sdkReqs, ours); d != "" {
			t.Errorf("%s: requests differ from the SDK's (-sdk +ours):\n%s", call.name, d)
		}
		if len(ours) == 0 {
			t.Errorf("%s: no request sent", call.name)
		}
	}
}

// sdkInfo maps the SDK's batch object as the adapter maps its own.
func sdkInfo(c *BatchClient, b *oai.Batch) any {
	if b == nil {
		return nil
	}
	o := &batchObject{ID: b.ID, InputFileID: b.InputFileID, OutputFileID: b.OutputFileID, ErrorFileID: b.ErrorFileID,
		Status: string(b.Status), Endpoint: string(b.Endpoint), CreatedAt: b.CreatedAt, Metadata: b.Metadata}
	o.RequestCounts.Total, o.RequestCounts.Completed, o.RequestCounts.Failed = b.RequestCounts.Total, b.RequestCounts.Completed, b.RequestCounts.Failed
	for _, e := range b.Errors.Data {
		o.Errors.Data = append(o.Errors.Data, struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Line    int64  `json:"line"`
		}{e.Code, e.Message, e.Line})
	}
	return c.info(o)
}
