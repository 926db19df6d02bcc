package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/invx/invx/store"
)

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestInterpretTransient is the classification table: what a worker may
// ride out (back off, reconnect, carry on) and what is a bug.
func TestInterpretTransient(t *testing.T) {
	t.Parallel()
	pg := func(code string) error { return &pgconn.PgError{Severity: "FATAL", Code: code, Message: "m"} }
	// A real connect error: a dial refused on a closed loopback port.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, dialErr := pgconn.Connect(ctx, fmt.Sprintf("postgres://invx@127.0.0.1:%d/invx?connect_timeout=10", closedPort(t)))
	if dialErr == nil {
		t.Fatal("connect to a closed port succeeded")
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"serialization failure 40001", pg("40001"), true},
		{"deadlock 40P01", pg("40P01"), true},
		{"admin shutdown 57P01 (pg_terminate_backend)", pg("57P01"), true},
		{"crash shutdown 57P02", pg("57P02"), true},
		{"cannot connect now 57P03", pg("57P03"), true},
		{"connection failure 08006", pg("08006"), true},
		{"connection does not exist 08003", pg("08003"), true},
		{"too many connections 53300", pg("53300"), true},
		{"wrapped 57P01", fmt.Errorf("claim: %w", pg("57P01")), true},
		{"dial refused (ConnectError)", dialErr, true},
		{"unexpected EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"EOF", io.EOF, true},
		{"conn closed", fmt.Errorf("begin: %w", pgconn.ErrConnClosed), true},
		{"socket error", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, true},
		{"unique violation 23505", pg("23505"), false},
		{"foreign key 23503", pg("23503"), false},
		{"syntax error 42601", pg("42601"), false},
		{"undefined table 42P01", pg("42P01"), false},
		{"invalid password 28P01", pg("28P01"), false},
		{"no rows", pgx.ErrNoRows, false},
		{"cancelled", context.Canceled, false},
		{"plain", errors.New("summary is not valid JSON"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := interpret(tt.err)
			if store.IsTransient(got) != tt.want {
				t.Fatalf("IsTransient(interpret(%v)) = %v, want %v", tt.err, !tt.want, tt.want)
			}
			if !errors.Is(got, tt.err) && !errors.Is(tt.err, pgx.ErrNoRows) {
				t.Fatalf("interpret(%v) = %v: lost the original error", tt.err, got)
			}
			if got.Error() == "" {
				t.Fatal("empty message")
			}
		})
	}
}
