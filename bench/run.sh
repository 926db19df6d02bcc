#!/usr/bin/env bash
# invx throughput benchmark: bash bench/run.sh [N]   (N documents, default 10000)
#
# Builds invx, generates N synthetic invoice texts, then measures, each with
# bench/rss (wall time, CPU time, peak RSS):
#   1. sha256sum over the same files: the floor for reading and hashing them;
#   2. a first `invx run --quiet --json` into a fresh SQLite database;
#   3. the same command again: a no-op rerun, which must commit nothing and
#      make no provider attempt (checked; the script fails otherwise);
#   4. optionally (BENCH_CONCURRENCY2=8) a second first run into another fresh
#      database with --concurrency 8.
# Prints a Markdown report on stdout and writes it to bench/out/report-N.md.
# Progress goes to stderr. BENCH_KEEP=1 keeps the temporary directory.
set -euo pipefail

N="${1:-10000}"
case "$N" in
'' | *[!0-9]* | 0)
	echo "bench: N must be a positive integer, got '$N'" >&2
	echo "Try: bash bench/run.sh 2000" >&2
	exit 2
	;;
esac
C2="${BENCH_CONCURRENCY2:-}"

cd "$(dirname "$0")/.."
ROOT="$(pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/invx-bench.XXXXXX")"
cleanup() {
	if [[ "${BENCH_KEEP:-}" == 1 ]]; then
		echo "bench: kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT

say() { echo "bench: $*" >&2; }
die() {
	echo "bench: FAILED: $*" >&2
	exit 1
}

# field FILE KEY prints the first integer value of "KEY": in a JSON summary.
# The top-level counts come before the nested "final" object, so the first
# match is the top-level one.
field() {
	local v
	v="$(grep -o "\"$2\":-\\?[0-9]*" "$1" | head -n 1 | cut -d: -f2)"
	[[ -n "$v" ]] || die "no \"$2\" in $1: $(head -c 400 "$1")"
	echo "$v"
}
# fig FILE KEY prints a figure from a bench/rss output line.
fig() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "-" }'; }
cpu() { awk -v u="$(fig "$1" user_s)" -v s="$(fig "$1" sys_s)" 'BEGIN { printf "%.2f", u + s }'; }

say "building invx, bench/gen and bench/rss into $TMP"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
go build -o "$TMP/invx" .
go build -o "$TMP/gen" ./bench/gen
go build -o "$TMP/rss" ./bench/rss

DOCS="$TMP/docs"
say "generating $N documents"
"$TMP/gen" -n "$N" -out "$DOCS" -seed 1
BYTES="$(find "$DOCS" -type f -name '*.txt' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')"
FILES="$(find "$DOCS" -type f -name '*.txt' | wc -l)"
[[ "$FILES" -eq "$N" ]] || die "generator wrote $FILES files, want $N"

DEFAULT_C="$("$TMP/invx" run --help 2>&1 | sed -n 's/.*--concurrency int.*(default \([0-9]*\)).*/\1/p' | head -n 1)"
DEFAULT_C="${DEFAULT_C:-?}"

say "sha256sum over the same files"
"$TMP/rss" -o "$TMP/sha.fig" -- sh -c 'find "$1" -type f -name "*.txt" -print0 | xargs -0 sha256sum >/dev/null' sh "$DOCS" ||
	die "sha256sum: exit $?"

# busy_ticks prints "BUSY STEAL": the machine's CPU ticks spent working
# (user, nice, system, irq, softirq) and stolen by the hypervisor so far.
busy_ticks() {
	if [[ -r /proc/stat ]]; then awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9; exit }' /proc/stat; else echo "0 0"; fi
}
HZ="$(getconf CLK_TCK 2>/dev/null || echo 100)"

# invx_run NAME DB [FLAG...] runs invx once under bench/rss; the summary goes to
# $TMP/NAME.json, the figures to $TMP/NAME.fig, stderr to $TMP/NAME.err, and
# the CPU the rest of the machine used meanwhile to $TMP/NAME.load.
# Exit 3 (finished, some documents need review) is a result, not a failure.
invx_run() {
	local name="$1" db="$2"
	shift 2
	local rc=0 before after
	before="$(busy_ticks)"
	"$TMP/rss" -o "$TMP/$name.fig" -- "$TMP/invx" run --quiet --json --db "$db" "$@" "$DOCS" \
		>"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
	after="$(busy_ticks)"
	awk -v b="$before" -v a="$after" -v hz="$HZ" -v own="$(cpu "$TMP/$name.fig")" -v w="$(fig "$TMP/$name.fig" wall_s)" 'BEGIN {
		split(b, x, " "); split(a, y, " ")
		if (w <= 0 || y[1] == 0) { print "-"; exit }
		other = ((y[1] - x[1]) / hz - own) / w; if (other < 0) other = 0
		printf "%.2f cores busy with other processes, %.2f cores stolen", other, (y[2] - x[2]) / hz / w
	}' >"$TMP/$name.load"
	if [[ "$rc" -ne 0 && "$rc" -ne 3 ]]; then
		cat "$TMP/$name.err" >&2
		die "$name: invx run exited $rc"
	fi
	grep -q '"status":"completed"' "$TMP/$name.json" || die "$name: run not completed: $(cat "$TMP/$name.json")"
	[[ "$(field "$TMP/$name.json" files_seen)" -eq "$N" ]] || die "$name: files_seen $(field "$TMP/$name.json" files_seen), want $N"
}

say "first run (concurrency $DEFAULT_C), $N documents; this is the slow part"
invx_run first "$TMP/bench.db"
DB_BYTES="$(du -cb "$TMP"/bench.db* | tail -n 1 | cut -f1)"

say "no-op rerun"
invx_run rerun "$TMP/bench.db"
RE_COMMITTED="$(field "$TMP/rerun.json" committed)"
RE_ATTEMPTS="$(field "$TMP/rerun.json" attempts)"
if [[ "$RE_COMMITTED" -ne 0 || "$RE_ATTEMPTS" -ne 0 ]]; then
	cat "$TMP/rerun.json" >&2
	die "the rerun committed $RE_COMMITTED and made $RE_ATTEMPTS attempts; both must be 0"
fi

if [[ -n "$C2" ]]; then
	say "first run with --concurrency $C2 into a fresh database"
	invx_run first_c2 "$TMP/bench-c$C2.db" --concurrency "$C2"
fi

# Outcome of a first run, for the notes column.
outcome() {
	local j="$TMP/$1.json"
	local rej
	rej="$(grep -o '"final":{.*' "$j" | grep -o '"rejected":[0-9]*' | head -n 1 | cut -d: -f2)"
	echo "committed $(field "$j" committed), attempts $(field "$j" attempts), rejected ${rej:-0}, failed $(field "$j" failed)"
}
row() { # row LABEL NAME NOTES
	local f="$TMP/$2.fig" w
	w="$(fig "$f" wall_s)"
	printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$w" "$(rate "$N" "$w")" "$(fig "$f" maxrss_mib)" "$(cpu "$f")" "$3"
}

REPORT="$ROOT/bench/out/report-$N.md"
mkdir -p "$ROOT/bench/out"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]]; then COMMIT="$COMMIT (dirty)"; fi
{
	echo "## invx benchmark, $N documents"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ), commit $COMMIT, $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)," \
		"nproc $(nproc), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1 || true)"
	echo
	echo "Input: $N files, $(awk -v b="$BYTES" 'BEGIN { printf "%.1f MiB, %.0f B average", b / 1048576, b / '"$N"' }'), provider rules," \
		"default --concurrency $DEFAULT_C. Page cache warm (files were just written)."
	echo
	echo "| step | wall s | docs/s | peak RSS MiB | CPU s | notes |"
	echo "|---|---:|---:|---:|---:|---|"
	row "sha256sum (read + hash floor)" sha "find + xargs sha256sum"
	row "invx run, first (concurrency $DEFAULT_C)" first "$(outcome first); invx wall_ms $(field "$TMP/first.json" wall_ms); db $(awk -v b="$DB_BYTES" 'BEGIN { printf "%.1f MiB", b / 1048576 }')"
	row "invx run, no-op rerun" rerun "committed $RE_COMMITTED, attempts $RE_ATTEMPTS, already_committed $(field "$TMP/rerun.json" already_committed); invx wall_ms $(field "$TMP/rerun.json" wall_ms)"
	if [[ -n "$C2" ]]; then
		row "invx run, first (concurrency $C2)" first_c2 "$(outcome first_c2); invx wall_ms $(field "$TMP/first_c2.json" wall_ms)"
	fi
	echo
	echo "wall s and peak RSS from bench/rss (whole process, start to exit); CPU s = user + sys."
	echo "Machine load during the first run: $(cat "$TMP/first.load") (of nproc $(nproc))."
} | tee "$REPORT"
say "report written to ${REPORT#"$ROOT"/}"
