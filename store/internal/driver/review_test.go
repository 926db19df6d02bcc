package driver

import (
	"testing"

	"github.com/invx/invx/store"
)

func i64(v int64) *int64   { return &v }
func str(v string) *string { return &v }

// A duplicate's detail says whether totals (by magnitude) and dates agree,
// and null, never a guess, when either side does not know.
func TestDuplicateReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		c      Candidate
		id     store.DocIdentity
		detail string
	}{
		{"both agree", Candidate{ResultID: 1, JobKey: "k", Path: "a.txt", SchemaVersion: "v", TotalMinor: i64(100), IssueDate: str("2026-01-01")},
			store.DocIdentity{TotalMinor: i64(100), IssueDate: str("2026-01-01")},
			`{"job_key":"k","path":"a.txt","schema_version":"v","result_id":1,"totals_agree":true,"dates_agree":true}`},
		{"credit note magnitude", Candidate{ResultID: 1, TotalMinor: i64(-100)}, store.DocIdentity{TotalMinor: i64(100)},
			`{"job_key":"","path":"","schema_version":"","result_id":1,"totals_agree":true,"dates_agree":null}`},
		{"disagree", Candidate{ResultID: 1, TotalMinor: i64(100), IssueDate: str("2026-01-01")},
			store.DocIdentity{TotalMinor: i64(101), IssueDate: str("2026-01-02")},
			`{"job_key":"","path":"","schema_version":"","result_id":1,"totals_agree":false,"dates_agree":false}`},
		{"unknown on one side", Candidate{ResultID: 1}, store.DocIdentity{TotalMinor: i64(100), IssueDate: str("2026-01-01")},
			`{"job_key":"","path":"","schema_version":"","result_id":1,"totals_agree":null,"dates_agree":null}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := DuplicateReason(tc.c, &tc.id)
			if r.Reason != store.ReasonPossibleDuplicate || string(r.Detail) != tc.detail {
				t.Fatalf("DuplicateReason = %s %s, want possible_duplicate %s", r.Reason, r.Detail, tc.detail)
			}
		})
	}
}

func TestCheckReasons(t *testing.T) {
	t.Parallel()
	got, err := CheckReasons([]store.ReviewReason{{Reason: store.ReasonIncomplete}, {Reason: store.ReasonArithmetic, Detail: []byte(`["x"]`)}})
	if err != nil || string(got[0].Detail) != `{}` || string(got[1].Detail) != `["x"]` {
		t.Fatalf("CheckReasons = %v, %v", got, err)
	}
	for _, bad := range []store.ReviewReason{{Reason: "late"}, {Reason: store.ReasonIncomplete, Detail: []byte(`{`)}} {
		if _, err := CheckReasons([]store.ReviewReason{bad}); err == nil {
			t.Fatalf("CheckReasons(%v) accepted it", bad)
		}
	}
}
