package e2e_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
)

// fakeFacts are complete invoice-summary-v1 facts whose invoice number is
// derived from the request: each document gets its own number, so a fake
// model's results are neither incomplete nor possible duplicates of each
// other, and the exit codes these tests check are about what they test,
// not about review (see docs/review-policy.md).
func fakeFacts(request []byte) map[string]any {
	sum := sha256.Sum256(request)
	return map[string]any{"supplier_name": "Fake Supplier Ltd", "invoice_number": "F-" + hex.EncodeToString(sum[:8]),
		"currency": "EUR", "total_minor": 100, "due_date": nil}
}

// requestBody reads what the client sent (nil when it cannot be read).
func requestBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}
