#!/usr/bin/env bash
# invx throughput benchmark: bash bench/run.sh [N]   (N documents, default 10000)
#
# Builds invx and the bench tools, generates N synthetic invoice texts, then
# measures each row below with bench/rss (wall time, CPU time, peak RSS) and
# prints it beside the sha256sum pass over the same files and the target of
# issue 17 (PASS/MISS; a MISS is a figure, not a failure):
#   sha256sum      the floor: reading and hashing the files;
#   replay         first run with the trivial provider (answers recorded
#                  beforehand, untimed, by a rules run with --record);
#   rules          first run with the default rules provider;
#   rerun          the same command again: a no-op rerun, which must commit
#                  nothing and make no provider attempt (checked; the script
#                  fails otherwise); stat: the rerun that skips unchanged files
#                  by stat, when invx has one (detected from run --help);
#   llm            first runs against bench/fakellm (OpenAI-compatible, fixed
#                  latency) at each BENCH_LLM_CONCURRENCY;
#   pg             PostgreSQL: run --enqueue-only, then 1 and BENCH_PG_WORKERS
#                  `invx work` processes on the fake LLM (BENCH_POSTGRES=1);
#   and the figures peak RSS and database size / input bytes.
# Environment (all optional):
#   BENCH_ONLY=rules,rerun        rows to measure (default: all of replay,
#                                 rules, rerun, stat, llm, pg; sha256sum always)
#   BENCH_LLM_CONCURRENCY="64 256"  BENCH_LLM_LATENCY_MS=200
#   BENCH_POSTGRES=1              measure the pg rows (starts .ci/postgres.sh)
#   BENCH_PG_WORKERS=4 BENCH_PG_CONCURRENCY=16
#   BENCH_CONCURRENCY2=8          add a rules first run with --concurrency 8
#   BENCH_REPEAT=3                run each timed row (sha256sum, replay, rules,
#                                 reruns, llm) 3 times and report the run of
#                                 median CPU; the pg rows run once
#   BENCH_KEEP=1                  keep the temporary directory
# Prints a Markdown report on stdout and writes it to bench/out/report-N.md;
# progress goes to stderr.
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
ONLY="${BENCH_ONLY:-replay,rules,rerun,stat,llm,pg}"
LLM_CS="${BENCH_LLM_CONCURRENCY:-64 256}"
LAT_MS="${BENCH_LLM_LATENCY_MS:-200}"
PG_WORKERS="${BENCH_PG_WORKERS:-4}"
PG_C="${BENCH_PG_CONCURRENCY:-16}"
REPEAT="${BENCH_REPEAT:-1}"
for v in "$LAT_MS" "$PG_WORKERS" "$PG_C" "$REPEAT" $LLM_CS ${C2:+"$C2"}; do
	case "$v" in
	'' | *[!0-9]* | 0)
		echo "bench: BENCH_* counts and latencies must be positive integers, got '$v'" >&2
		exit 2
		;;
	esac
done
for r in ${ONLY//,/ }; do
	case "$r" in
	replay | rules | rerun | stat | llm | pg) ;;
	*)
		echo "bench: BENCH_ONLY: unknown row '$r' (rows: replay, rules, rerun, stat, llm, pg)" >&2
		exit 2
		;;
	esac
done
# db_parts DB prints where a SQLite file's bytes are (", largest tables:
# jobs 10.8, ...; indexes 6.9 MiB; free 0.0 MiB"), from its dbstat table, or
# nothing without a sqlite3 that has one (docs/storage.md reads this line).
db_parts() {
	command -v sqlite3 >/dev/null 2>&1 || return 0
	sqlite3 -readonly "$1" "
		WITH p AS (SELECT s.type AS type, d.name AS name, sum(d.pgsize) / 1048576.0 AS mib
			FROM dbstat d JOIN sqlite_schema s ON s.name = d.name GROUP BY d.name)
		SELECT ', largest tables: ' || (SELECT group_concat(name || ' ' || printf('%.1f', mib), ', ')
				FROM (SELECT * FROM p WHERE type = 'table' ORDER BY mib DESC LIMIT 5))
			|| '; indexes ' || printf('%.1f', (SELECT coalesce(sum(mib), 0) FROM p WHERE type = 'index'))
			|| ' MiB; free ' || printf('%.1f', (SELECT freelist_count FROM pragma_freelist_count)
				* (SELECT page_size FROM pragma_page_size) / 1048576.0) || ' MiB'" 2>/dev/null || true
}
# want ROW: is ROW selected by BENCH_ONLY?
want() { [[ ",$ONLY," == *",$1,"* ]]; }

cd "$(dirname "$0")/.."
ROOT="$(pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/invx-bench.XXXXXX")"
FAKE_PID=""
PG_STOP=""
cleanup() {
	if [[ -n "$FAKE_PID" ]]; then kill "$FAKE_PID" 2>/dev/null || true; fi
	if [[ -n "$PG_STOP" ]]; then eval "$PG_STOP" || true; fi
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
# fig NAME KEY prints a figure from the bench/rss line in $TMP/NAME.fig.
fig() { tr ' ' '\n' <"$TMP/$1.fig" | sed -n "s/^$2=//p"; }
# calc FMT EXPR [VAR=VALUE...] prints an awk expression with printf FMT, or
# "-" when a figure is missing or it divides by zero.
calc() {
	local f="$1" expr="$2" a args=()
	shift 2
	for a in "$@"; do
		[[ -n "${a#*=}" && "${a#*=}" != - ]] || {
			echo "-"
			return
		}
		args+=(-v "$a")
	done
	awk "${args[@]}" "BEGIN { printf \"$f\\n\", $expr }" 2>/dev/null || echo "-"
}
cpu() { calc %.3f 'u + s' u="$(fig "$1" user_s)" s="$(fig "$1" sys_s)"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

say "building invx and the bench tools into $TMP"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
# Built as the README's release line builds (static, no libc to map), then
# copied: the linker's output sits in the page cache in large folios, so a
# freshly linked binary maps up to 10 MiB more of itself than an installed
# (copied, downloaded) one; bench/README.md, "Memory".
CGO_ENABLED=0 go build -trimpath -o "$TMP/invx.linked" .
cp "$TMP/invx.linked" "$TMP/invx"
rm -f "$TMP/invx.linked"
go build -o "$TMP/gen" ./bench/gen
go build -o "$TMP/rss" ./bench/rss
go build -o "$TMP/fakellm" ./bench/fakellm

DOCS="$TMP/docs"
say "generating $N documents"
"$TMP/gen" -n "$N" -out "$DOCS" -seed 1
BYTES="$(find "$DOCS" -type f -name '*.txt' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')"
FILES="$(find "$DOCS" -type f -name '*.txt' | wc -l)"
[[ "$FILES" -eq "$N" ]] || die "generator wrote $FILES files, want $N"

RUN_HELP="$("$TMP/invx" run --help 2>&1)"
DEFAULT_C="$(sed -n 's/.*--concurrency int.*(default \([0-9]*\)).*/\1/p' <<<"$RUN_HELP" | head -n 1)"
DEFAULT_C="${DEFAULT_C:-?}"
# The stat check of issue 17 (files unchanged by path, size, mtime and inode
# are not read) is detected by its flag: --rehash forces reading, so the
# plain rerun is the stat rerun and --rehash the reading one; a --stat...
# flag turns the check on.
REREAD_FLAG="" STAT_FLAG="" STAT_HOW=""
if grep -q -- '--rehash' <<<"$RUN_HELP"; then
	REREAD_FLAG="--rehash" STAT_HOW="plain rerun (stat check on; --rehash is the reading rerun)"
elif f="$(grep -o -- '--stat[a-z-]*' <<<"$RUN_HELP" | head -n 1)" && [[ -n "$f" ]]; then
	STAT_FLAG="$f" STAT_HOW="rerun with $f"
fi

# busy_ticks prints "BUSY STEAL": the machine's CPU ticks spent working
# (user, nice, system, irq, softirq) and stolen by the hypervisor so far.
busy_ticks() {
	if [[ -r /proc/stat ]]; then awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9; exit }' /proc/stat; else echo "0 0"; fi
}
HZ="$(getconf CLK_TCK 2>/dev/null || echo 100)"

# measure NAME CMD... runs CMD under bench/rss: figures to $TMP/NAME.fig,
# stdout to $TMP/NAME.json, stderr to $TMP/NAME.err, and the cores the rest
# of the machine kept busy meanwhile to $TMP/NAME.load. Prints CMD's exit code.
measure() {
	local name="$1"
	shift
	local rc=0 before after
	before="$(busy_ticks)"
	"$TMP/rss" -o "$TMP/$name.fig" -- "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
	after="$(busy_ticks)"
	awk -v b="$before" -v a="$after" -v hz="$HZ" -v own="$(cpu "$name")" -v w="$(fig "$name" wall_s)" 'BEGIN {
		split(b, x, " "); split(a, y, " ")
		if (w <= 0 || y[1] == 0) { print "-"; exit }
		other = ((y[1] - x[1]) / hz - own) / w; if (other < 0) other = 0
		printf "%.2f", other
	}' >"$TMP/$name.load"
	echo "$rc"
}

# reps NAME is how many times the row NAME runs: BENCH_REPEAT, but once for
# the untimed recording and the PostgreSQL enqueue.
reps() {
	case "$1" in
	record | pg_enqueue*) echo 1 ;;
	*) echo "$REPEAT" ;;
	esac
}

# measure_rows NAME FRESH CMD... is measure, run reps NAME times when that is
# more than 1: each run's files are NAME.K.*, and the run of median CPU
# (user + sys) becomes NAME's, but for its peak memory figures, which are
# the largest run's: the memory target is a bound, so the worst run is
# reported. FRESH, when not empty, is a database file removed (with its
# WAL) before each run, so each is a first run. A failed run ends the
# repeats and becomes NAME's. Prints the exit code of the run kept.
measure_rows() {
	local name="$1" fresh="$2" r k rc keep ext
	shift 2
	r="$(reps "$name")"
	if [[ "$r" -eq 1 ]]; then
		measure "$name" "$@"
		return
	fi
	for k in $(seq "$r"); do
		[[ -z "$fresh" ]] || rm -f "$fresh" "$fresh-wal" "$fresh-shm"
		rc="$(measure "$name.$k" "$@")"
		echo "$rc" >"$TMP/$name.$k.rc"
		if [[ "$rc" -ne 0 && "$rc" -ne 3 ]]; then
			keep="$k"
			break
		fi
	done
	if [[ -z "${keep:-}" ]]; then
		keep="$(for k in $(seq "$r"); do echo "$(cpu "$name.$k") $k"; done | sort -n |
			awk -v m="$(((r + 1) / 2))" 'NR == m { print $2 }')"
	fi
	for ext in fig json err load; do cp "$TMP/$name.$keep.$ext" "$TMP/$name.$ext"; done
	local most
	most="$(for k in $(seq "$r"); do [[ -f "$TMP/$name.$k.fig" ]] && echo "$(fig "$name.$k" maxrss_mib) $k"; done |
		sort -n | tail -n 1 | cut -d' ' -f2)"
	if [[ -n "$most" && "$most" != "$keep" ]]; then
		awk -v m="$(cat "$TMP/$name.$most.fig")" '{
			n = split(m, src, " ")
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] ~ /^max(rss|anon|file)_mib$/)
					for (j = 1; j <= n; j++) if (index(src[j], kv[1] "=") == 1) $i = src[j]
			}
			print
		}' "$TMP/$name.fig" >"$TMP/$name.fig.tmp" && mv "$TMP/$name.fig.tmp" "$TMP/$name.fig"
	fi
	cat "$TMP/$name.$keep.rc"
}

# invx_run NAME DB [FLAG...] runs `invx run` over the documents into DB
# (reps NAME times, each into a fresh DB when DB did not exist before).
# Exit 3 (finished, some documents need review) is a result, not a failure.
# OPENAI_* are unset: a real key must never reach the loopback fake, and the
# flags say where requests go.
invx_run() {
	local name="$1" db="$2" rc fresh=""
	shift 2
	if [[ "$db" != *://* && ! -e "$db" ]]; then fresh="$db"; fi
	rc="$(measure_rows "$name" "$fresh" env -u OPENAI_API_KEY -u OPENAI_BASE_URL "$TMP/invx" run --quiet --json --db "$db" "$@" "$DOCS")"
	if [[ "$rc" -ne 0 && "$rc" -ne 3 ]]; then
		cat "$TMP/$name.err" >&2
		die "$name: invx run exited $rc"
	fi
	local status=completed
	if [[ " $* " == *" --enqueue-only "* ]]; then status=enqueued; fi
	grep -q "\"status\":\"$status\"" "$TMP/$name.json" || die "$name: run not $status: $(cat "$TMP/$name.json")"
	[[ "$(field "$TMP/$name.json" files_seen)" -eq "$N" ]] || die "$name: files_seen $(field "$TMP/$name.json" files_seen), want $N"
}

# check_noop NAME: a rerun must commit nothing and call no provider.
check_noop() {
	local c a
	c="$(field "$TMP/$1.json" committed)"
	a="$(field "$TMP/$1.json" attempts)"
	if [[ "$c" -ne 0 || "$a" -ne 0 ]]; then
		cat "$TMP/$1.json" >&2
		die "$1: the rerun committed $c and made $a attempts; both must be 0"
	fi
}

# outcome NAME: the counts of a first run, for the notes column.
outcome() {
	local j="$TMP/$1.json" rej
	rej="$(grep -o '"final":{.*' "$j" | grep -o '"rejected":[0-9]*' | head -n 1 | cut -d: -f2)"
	echo "committed $(field "$j" committed), attempts $(field "$j" attempts), rejected ${rej:-0}, failed $(field "$j" failed)"
}

# ---- the rows -------------------------------------------------------------

say "sha256sum over the same files"
# shellcheck disable=SC2016 # $1 is expanded by the inner sh, on purpose
rc="$(measure_rows sha "" sh -c 'find "$1" -type f -name "*.txt" -print0 | xargs -0 sha256sum >/dev/null' sh "$DOCS")"
[[ "$rc" -eq 0 ]] || die "sha256sum: exit $rc"

# Answers for the replay row and the fake LLM come from one rules run with
# --record into a throwaway database, outside every timed row.
REC="$TMP/rec"
if want replay || want llm || want pg; then
	say "recording rules answers (untimed)"
	invx_run record "$TMP/record.db" --record "$REC"
fi

if want replay; then
	say "first run, replay provider"
	invx_run replay "$TMP/replay.db" --provider replay --replay-dir "$REC"
fi

if want rules; then
	say "first run, rules provider (concurrency $DEFAULT_C); the slow part"
	invx_run rules "$TMP/rules.db"
fi
# The database the size figure and the reruns use: the rules first run's,
# else another first run's of the same documents.
DB=""
for d in rules replay record; do
	if [[ -f "$TMP/$d.db" ]]; then
		DB="$TMP/$d.db" DB_FROM="$d"
		break
	fi
done
if [[ -n "$DB" ]]; then DB_BYTES="$(du -cb "$DB"* | tail -n 1 | cut -f1)"; fi

if want rerun || { want stat && [[ -n "$STAT_HOW" ]]; }; then
	if [[ -z "$DB" ]]; then
		say "first run for the reruns (untimed)"
		invx_run record "$TMP/record.db"
		DB="$TMP/record.db" DB_FROM=record
		DB_BYTES="$(du -cb "$DB"* | tail -n 1 | cut -f1)"
	fi
	if want rerun; then
		say "no-op rerun${REREAD_FLAG:+ with $REREAD_FLAG}"
		invx_run rerun "$DB" ${REREAD_FLAG:+"$REREAD_FLAG"}
		check_noop rerun
	fi
	if want stat && [[ -n "$STAT_HOW" ]]; then
		say "no-op rerun, stat check"
		invx_run stat "$DB" ${STAT_FLAG:+"$STAT_FLAG"}
		check_noop stat
	fi
fi

if [[ -n "$C2" ]]; then
	say "first run with --concurrency $C2 into a fresh database"
	invx_run c2 "$TMP/c2.db" --concurrency "$C2"
fi

# The fake LLM runs under bench/rss of its own, so its CPU is never counted
# as invx's.
start_fake() {
	"$TMP/rss" -o "$TMP/fake.fig" -- "$TMP/fakellm" -answers "$REC" -latency "${LAT_MS}ms" \
		-addr-file "$TMP/fake.addr" 2>"$TMP/fake.err" &
	FAKE_PID=$!
	local i
	for i in $(seq 100); do
		[[ -s "$TMP/fake.addr" ]] && break
		kill -0 "$FAKE_PID" 2>/dev/null || die "fakellm exited: $(cat "$TMP/fake.err")"
		sleep 0.1
	done
	[[ -s "$TMP/fake.addr" ]] || die "fakellm did not start in 10 s"
	FAKE_URL="$(cat "$TMP/fake.addr")"
}
stop_fake() {
	kill -TERM "$FAKE_PID" 2>/dev/null || true
	wait "$FAKE_PID" 2>/dev/null || true
	FAKE_PID=""
}
LLM_FLAGS=()
if want llm || { want pg && [[ "${BENCH_POSTGRES:-}" == 1 ]]; }; then
	say "starting bench/fakellm (latency $LAT_MS ms)"
	start_fake
	LLM_FLAGS=(--provider openai --model fakellm --base-url "$FAKE_URL" --max-unreachable 1)
fi

if want llm; then
	for c in $LLM_CS; do
		say "first run, fake LLM, concurrency $c"
		invx_run "llm$c" "$TMP/llm$c.db" "${LLM_FLAGS[@]}" --concurrency "$c"
	done
fi

# pg_work NAME DSN W runs W `invx work` processes at once under one
# bench/rss: wall is the first start to the last exit, CPU their sum, peak
# RSS the largest of them.
pg_work() {
	local name="$1" dsn="$2" w="$3" rc i
	# shellcheck disable=SC2016 # the inner sh expands its own arguments
	rc="$(measure "$name" env -u OPENAI_API_KEY -u OPENAI_BASE_URL sh -c '
		tmp="$1" name="$2" w="$3"; shift 3
		i=1
		while [ "$i" -le "$w" ]; do
			( "$@" >"$tmp/$name.$i.json" 2>"$tmp/$name.$i.err"; echo $? >"$tmp/$name.$i.rc" ) &
			i=$((i + 1))
		done
		wait' sh "$TMP" "$name" "$w" \
		"$TMP/invx" work --quiet --json --db "$dsn" "${LLM_FLAGS[@]}" --concurrency "$PG_C")"
	[[ "$rc" -eq 0 ]] || die "$name: the workers' shell exited $rc"
	local committed=0
	for i in $(seq "$w"); do
		rc="$(cat "$TMP/$name.$i.rc")"
		if [[ "$rc" -ne 0 && "$rc" -ne 3 ]]; then
			cat "$TMP/$name.$i.err" >&2
			die "$name: invx work #$i exited $rc"
		fi
		committed=$((committed + $(field "$TMP/$name.$i.json" committed)))
	done
	[[ "$committed" -eq "$N" ]] || die "$name: the workers committed $committed, want $N"
	echo "committed $committed by $w worker(s): $(for i in $(seq "$w"); do printf '%s ' "$(field "$TMP/$name.$i.json" committed)"; done | sed 's/ $//')" >"$TMP/$name.notes"
}

PG_STATE="skipped (BENCH_POSTGRES=1 to measure)"
if want pg && [[ "${BENCH_POSTGRES:-}" == 1 ]]; then
	command -v psql >/dev/null || die "BENCH_POSTGRES=1 needs psql"
	say "starting a throwaway PostgreSQL (.ci/postgres.sh)"
	PG_ENV="$(bash .ci/postgres.sh)" || die "could not start PostgreSQL"
	eval "$PG_ENV"
	PG_STOP="$INVX_TEST_POSTGRES_STOP"
	for w in 1 "$PG_WORKERS"; do
		psql -q -v ON_ERROR_STOP=1 "$INVX_TEST_POSTGRES" -c "CREATE DATABASE bench_w$w" >/dev/null
		dsn="${INVX_TEST_POSTGRES/\/postgres\?//bench_w$w?}"
		say "PostgreSQL: enqueue $N documents (untimed), then $w invx work process(es) at --concurrency $PG_C"
		invx_run "pg_enqueue$w" "$dsn" --enqueue-only
		pg_work "pg_w$w" "$dsn" "$w"
	done
	PG_STATE=measured
fi

if [[ -n "$FAKE_PID" ]]; then
	stop_fake
	FAKE_NOTE="fakellm: $(cpu fake) CPU s in all, peak RSS $(fig fake maxrss_mib) MiB; $(sed -n 's/^fakellm: //p' "$TMP/fake.err" | tail -n 2 | paste -sd ';' | sed 's/;/; /')"
fi

# ---- the report -----------------------------------------------------------

SHA_W="$(fig sha wall_s)"
SHA_C="$(cpu sha)"
# cols NAME prints the measured columns of a row: wall s, docs/s, CPU s,
# CPU ms/doc, peak RSS MiB, x sha256sum wall, x sha256sum CPU, cores busy
# elsewhere.
cols() {
	local w c
	w="$(fig "$1" wall_s)"
	c="$(cpu "$1")"
	printf '%s | %s | %s | %s | %s | %s | %s | %s' "$w" "$(calc %.0f 'n / w' n="$N" w="$w")" "$c" \
		"$(calc %.2f 'c * 1000 / n' c="$c" n="$N")" "$(fig "$1" maxrss_mib)" \
		"$(calc %.1f 'w / s' w="$w" s="$SHA_W")" "$(calc %.1f 'c / s' c="$c" s="$SHA_C")" "$(cat "$TMP/$1.load")"
}
NOCOLS='- | - | - | - | - | - | - | -'
# verdict EXPR VAR=VALUE...: PASS when the awk condition holds.
verdict() {
	local r
	r="$(calc %d "($1) ? 1 : 0" "${@:2}")"
	case "$r" in 1) echo PASS ;; 0) echo MISS ;; *) echo "-" ;; esac
}
line() { printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5"; }
docs_s() { calc %.3f 'n / w' n="$N" w="$(fig "$1" wall_s)"; }
ms_doc() { calc %.4f 'c * 1000 / n' c="$(cpu "$1")" n="$N"; }
# figure LABEL TARGET RESULT NOTES: a row that is a figure, not a command.
figure() { line "$1" "$NOCOLS" "$2" "$3" "$4"; }

REPORT="$ROOT/bench/out/report-$N.md"
mkdir -p "$ROOT/bench/out"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]]; then COMMIT="$COMMIT (dirty)"; fi

# Peak RSS: the largest of the single-process invx rows; flatness compares
# the rules first run with bench/out/rss-M.txt of earlier invocations.
PEAK="" PEAK_ROW=""
for r in replay rules rerun stat c2 llm${LLM_CS// / llm}; do
	[[ -f "$TMP/$r.fig" ]] || continue
	m="$(fig "$r" maxrss_mib)"
	if [[ -z "$PEAK" ]] || awk -v a="$m" -v b="$PEAK" 'BEGIN { exit !(a > b) }'; then PEAK="$m" PEAK_ROW="$r"; fi
done
FLAT_NOTE="run N=10000 and N=100000 (two invocations) to compare"
FLAT_VERDICT="-"
if [[ -f "$TMP/rules.fig" ]]; then
	fig rules maxrss_mib >"$ROOT/bench/out/rss-$N.txt"
	other=""
	for f in "$ROOT"/bench/out/rss-*.txt; do
		m="${f##*/rss-}"
		m="${m%.txt}"
		[[ "$m" != "$N" ]] || continue
		other="$other${other:+; }N=$m: $(cat "$f") MiB (this / that $(calc %.2f 'a / b' a="$(fig rules maxrss_mib)" b="$(cat "$f")")x)"
		if [[ "$N" -ge 100000 && "$m" -eq 10000 ]] || [[ "$N" -eq 10000 && "$m" -ge 100000 ]]; then
			lo="$(cat "$f")" hi="$(fig rules maxrss_mib)"
			if [[ "$N" -eq 10000 ]]; then lo="$hi" hi="$(cat "$f")"; fi
			FLAT_VERDICT="$(verdict 'h <= l * 1.1' h="$hi" l="$lo")"
		fi
	done
	FLAT_NOTE="rules first run, this N: $(fig rules maxrss_mib) MiB (anonymous $(fig rules maxanon_mib), binary and other files $(fig rules maxfile_mib)); earlier (bench/out/rss-*.txt): ${other:-none}"
fi

{
	echo "## invx benchmark, $N documents"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ), commit $COMMIT, $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)," \
		"nproc $(nproc), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1 || true)"
	echo
	echo "Input: $N files, $(mib "$BYTES") MiB, $(calc %.0f 'b / n' b="$BYTES" n="$N") B average;" \
		"default --concurrency $DEFAULT_C; page cache warm (files were just written). Rows: $ONLY." \
		"$(if [[ "$REPEAT" -gt 1 ]]; then echo "Each timed row: wall and CPU of the run of median CPU of $REPEAT (BENCH_REPEAT), peak RSS of the largest; the pg rows: one run."; else echo "One run a row."; fi)"
	echo
	echo "| row | wall s | docs/s | CPU s | CPU ms/doc | peak RSS MiB | x sha wall | x sha CPU | busy elsewhere | target | result | notes |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
	line "sha256sum (read + hash floor)" "$(cols sha)" "-" "-" "find + xargs sha256sum"
	if want replay; then
		line "first run, replay (c$DEFAULT_C)" "$(cols replay)" ">= 10000 docs/s" \
			"$(verdict 'd >= 10000' d="$(docs_s replay)")" "$(outcome replay)"
	fi
	if want rules; then
		line "first run, rules (c$DEFAULT_C)" "$(cols rules)" ">= 3000 docs/s" \
			"$(verdict 'd >= 3000' d="$(docs_s rules)")" "$(outcome rules)"
	fi
	if [[ -n "$C2" ]]; then
		line "first run, rules (c$C2)" "$(cols c2)" "-" "-" "$(outcome c2)"
	fi
	if want rerun; then
		line "no-op rerun${REREAD_FLAG:+ $REREAD_FLAG}" "$(cols rerun)" "<= 1.0x sha CPU and wall" \
			"$(verdict "c <= $SHA_C && w <= $SHA_W" c="$(cpu rerun)" w="$(fig rerun wall_s)")" \
			"committed 0, attempts 0 (checked), already_committed $(field "$TMP/rerun.json" already_committed); db of the $DB_FROM run"
	fi
	if want stat; then
		if [[ -n "$STAT_HOW" ]]; then
			line "no-op rerun, stat check" "$(cols stat)" "<= 0.3x sha CPU and wall" \
				"$(verdict "c <= 0.3 * $SHA_C && w <= 0.3 * $SHA_W" c="$(cpu stat)" w="$(fig stat wall_s)")" \
				"$STAT_HOW; committed 0, attempts 0 (checked)"
		else
			figure "no-op rerun, stat check" "<= 0.3x sha CPU and wall" "n/a (not implemented)" "no --rehash or --stat flag in invx run --help"
		fi
	fi
	if want llm; then
		for c in $LLM_CS; do
			pct=95
			if [[ "$c" -gt 64 ]]; then pct=90; fi
			ideal="$(calc %.0f 'c * 1000 / l' c="$c" l="$LAT_MS")"
			line "fake LLM ${LAT_MS} ms, c$c" "$(cols "llm$c")" ">= $pct % of $ideal docs/s, <= 0.5 CPU ms/doc" \
				"$(verdict "d >= $ideal * $pct / 100 && m <= 0.5" d="$(docs_s "llm$c")" m="$(ms_doc "llm$c")")" \
				"$(calc %.0f 'd * 100 / i' d="$(docs_s "llm$c")" i="$ideal") % of ideal; $(outcome "llm$c")"
		done
	fi
	if want pg; then
		if [[ "$PG_STATE" == measured ]]; then
			for w in 1 "$PG_WORKERS"; do
				line "PostgreSQL, $w invx work (c$PG_C each)" "$(cols "pg_w$w")" "-" "-" \
					"$(cat "$TMP/pg_w$w.notes"); enqueue-only took $(fig "pg_enqueue$w" wall_s) s (untimed)"
			done
			ratio="$(calc %.2f 'a / b' a="$(docs_s "pg_w$PG_WORKERS")" b="$(docs_s pg_w1)")"
			figure "PostgreSQL, $PG_WORKERS workers / 1" ">= 3.5x" "$(verdict "r >= 3.5" r="$ratio")" \
				"${ratio}x docs/s (ideal ${PG_WORKERS}x)"
		else
			figure "PostgreSQL, $PG_WORKERS workers / 1" ">= 3.5x" "-" "$PG_STATE"
		fi
	fi
	if [[ -n "$PEAK" ]]; then
		figure "peak RSS (largest invx row)" "<= 80 MiB" "$(verdict 'p <= 80' p="$PEAK")" "$PEAK MiB in the $PEAK_ROW row (sampled peaks: anonymous $(fig "$PEAK_ROW" maxanon_mib) MiB, binary and other files $(fig "$PEAK_ROW" maxfile_mib) MiB)"
	fi
	figure "peak RSS flat 10k -> 100k" "within 10 %" "$FLAT_VERDICT" "$FLAT_NOTE"
	if [[ -n "${DB_BYTES:-}" ]]; then
		dbx="$(calc %.2f 'd / b' d="$DB_BYTES" b="$BYTES")"
		figure "database / input bytes" "<= 1.5x" "$(verdict 'x <= 1.5' x="$dbx")" \
			"${dbx}x: $(mib "$DB_BYTES") MiB (SQLite file with WAL, $DB_FROM run) / $(mib "$BYTES") MiB$(db_parts "$DB")"
	fi
	echo
	echo "wall s, CPU s (user + sys) and peak RSS from bench/rss, per invx process from start to exit (the pg rows: all"
	echo "workers together, RSS the largest). x sha = this row / the sha256sum row. busy elsewhere: cores the rest of the"
	echo "machine kept busy during the row (of nproc $(nproc)); if not near 0, compare CPU, not wall."
	if [[ -n "${FAKE_NOTE:-}" ]]; then echo "The fake LLM's CPU is not in any row: $FAKE_NOTE."; fi
} | tee "$REPORT"
say "report written to ${REPORT#"$ROOT"/}"
