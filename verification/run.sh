#!/usr/bin/env bash
# Runs every SPIN model's properties and every negative control (see README.md and docs/verification.md).
# One line per run: PASS/FAIL, what it checks, the result, states explored, the search (exhaustive or bitstate)
# and the time. Exits non-zero when a property fails or a negative control no longer finds its counterexample.
# Generated files (pan.c, pan, trails) go to a temporary directory; with KEEP_TRAILS=<dir>, each negative
# control's counterexample is written there as a `spin -t -p` listing. SPIN_JOBS (default 2) runs go at once (each
# verifier is single-threaded); the lines are printed in the order below, each with its own time.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
MEM=${SPIN_MEMLIM_MB:-1536}
JOBS=${SPIN_JOBS:-2}
failed=0
runs=()

# check <name> <model> <expect: pass|fail> <assertion text expected in the counterexample, or -> <spin -D defines>
#       [liveness]
check() {
  local name="$1" model="$2" expect="$3" pattern="$4" defines="$5" mode="${6:-safety}"
  local dir="$work/$name"
  mkdir -p "$dir"
  cp "$here/$model" "$dir/"
  local start end secs out states result search cc pan
  start=$(date +%s.%N)
  if ! (cd "$dir" && spin -a $defines "$model" >spin.out 2>&1); then
    echo "FAIL $name: spin -a failed"; cat "$dir/spin.out"; touch "$dir/FAILED"; return
  fi
  case "$mode" in
    safety)   cc="-DSAFETY -DCOLLAPSE"; pan="-E -m20000"; search="exhaustive" ;;
    bitstate) cc="-DSAFETY -DBITSTATE"; pan="-E -m20000 -w26"; search="BITSTATE (-w26, partial)" ;;
    liveness) cc="-DCOLLAPSE -DNFAIR=3"; pan="-a -f -m200000"; search="exhaustive, weak fairness" ;;
  esac
  if ! (cd "$dir" && gcc -O2 -w $cc -DMEMLIM=$MEM -o pan pan.c >gcc.out 2>&1); then
    echo "FAIL $name: gcc failed"; cat "$dir/gcc.out"; touch "$dir/FAILED"; return
  fi
  out=$(cd "$dir" && ./pan $pan 2>&1)
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  states=$(echo "$out" | awk '/states, stored/ { print $1; exit }')
  local errors incomplete violated
  errors=$(echo "$out" | sed -n 's/.*errors: \([0-9]*\).*/\1/p' | head -1)
  incomplete=$(echo "$out" | grep -c "Search not completed\|reached -DMEMLIM bound\|max search depth too small")
  local full
  full=$(echo "$out" | grep -m1 -E "^pan:[0-9]*: *(assertion violated|acceptance cycle|non-progress cycle)" \
    | sed 's/^pan:[0-9]*: *//; s/ (at depth [0-9]*)//')
  violated=$(echo "$full" | cut -c1-90)
  if [ "$expect" = pass ]; then
    if [ "${errors:-1}" = 0 ] && [ "$incomplete" = 0 ]; then
      result="PASS"
    else
      result="FAIL"; touch "$dir/FAILED"
    fi
    printf '%-4s %-34s %-11s states=%-10s %-26s %6ss  %s\n' "$result" "$name" "holds" "$states" "$search" "$secs" \
      "${violated:+violated: $violated}"
    if [ "$result" = FAIL ] && [ "$incomplete" != 0 ]; then echo "     search incomplete: $(echo "$out" | grep -m1 -E 'MEMLIM|depth|not completed')"; fi
  else
    if [ "${errors:-0}" != 0 ] && { [ "$pattern" = - ] || echo "$full" | grep -qF -- "$pattern"; }; then
      result="PASS"
      if [ -n "${KEEP_TRAILS:-}" ]; then
        mkdir -p "$KEEP_TRAILS"
        (cd "$dir" && spin -t -p -g $defines "$model" 2>&1 | grep -E "proc +[0-9]+ \(|assertion|violated" \
          | grep -v "Monitor" | sed -E 's/^ *[0-9]+:\s+proc +([0-9]+) \(([A-Za-z]+):1\) [a-z_.]+:([0-9]+) \(state [0-9]+\)\s*/\2(pid \1) line \3: /' \
          | grep -vE ': \[\(?\(?[a-z]+ = 0\)?\]$|: \[\(1\)\]$|: \[else\]$' >"$KEEP_TRAILS/$name.txt")
      fi
    else
      result="FAIL"; touch "$dir/FAILED"
    fi
    printf '%-4s %-34s %-11s states=%-10s %-26s %6ss  %s\n' "$result" "$name" "refuted" "$states" "$search" "$secs" \
      "${violated:-NO COUNTEREXAMPLE FOUND}"
  fi
}

# queue <check's arguments>: runs a check in the background, at most JOBS at once; its line is printed later, in
# the order queued
queue() {
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  mkdir -p "$work/$1"
  check "$@" >"$work/$1/line" 2>&1 &
  runs+=("$1")
}

command -v spin >/dev/null || { echo "spin not found (Debian package spin)"; exit 2; }
command -v gcc >/dev/null || { echo "gcc not found"; exit 2; }
echo "SPIN $(spin -V | sed 's/Spin Version //')"

# ---- the Redis store's reentrant lock: 2 clients x 1 attempt, lease 1 tick, 1 network fault, 1 restart ----
# (lease 2 ticks: 18.8 million states, about 2 minutes: run by hand, see README.md)
R=redis_lock.pml
B="-DMAXF=1 -DMAXR=1 -DL=1"
queue redis.properties-a-b-c-d        $R pass - "$B"
queue redis.property-e-liveness       $R pass - "-DLIVENESS -DL=1 -DMAXREN=0" liveness
queue redis.NO_OWNER_CHECK            $R fail "(ownerT==t)" "$B -DNO_OWNER_CHECK"
queue redis.SHARED_OWNER_ID           $R fail "(ownerT==t)" "-DNT=3 -DMAXF=1 -DMAXR=0 -DL=1 -DSHARED_OWNER_ID"
queue redis.NO_FENCING                $R fail "(myTok>=high)" "$B -DNO_FENCING"
queue redis.EVICTION                  $R fail "valid" "$B -DEVICTION"
queue redis.NO_LIFE_MARKER            $R fail "earlyEnd" "$B -DNO_LIFE_MARKER"
# the finding of docs/verification.md, fixed: a release unanswered within its lease, told lost unless the server
# life is unchanged; without that check a hold wiped by a restart ends unreported
queue redis.NO_UNANSWERED_CHECK       $R fail "earlyEnd" "$B -DNO_UNANSWERED_CHECK"

# ---- Redlock: 3 nodes, client 0 one round, client 1 two rounds, lease 2 ticks, node 0's clock 5 ticks ahead,
# 1 node restart (delayed), 1 vote or extend unanswered in time, 1 renewal round, 5 ticks. The property run is too
# large for an exhaustive search in CI (over 2.5 minutes unfinished; with the renewal, out of 1.5 GB at 32 million
# states even with 4 ticks and one round of client 1): bitstate hashing, a partial search (pan prints its hash
# factor). The acquisition's controls run without the renewal (MAXE=0): their counterexamples need none
K=redlock.pml
RB="-DMAXT=5 -DOFF=5"
RC="$RB -DMAXE=0"
queue redlock.properties-a-b-c        $K pass - "$RB" bitstate
queue redlock.IMMEDIATE_RESTART       $K fail "validUntil" "$RC -DIMMEDIATE_RESTART"
queue redlock.EVICTION                $K fail "validUntil" "$RC -DEVICTION"
queue redlock.NO_DRIFT_MARGIN         $K fail "validUntil" "$RC -DNO_DRIFT_MARGIN"
queue redlock.NO_WITHDRAWAL_MARKER    $K fail "relRan" "$RC -DNO_WITHDRAWAL_MARKER"
queue redlock.NO_WITHDRAW_UNANSWERED  $K fail "relRan" "$RC -DNO_WITHDRAW_UNANSWERED"
# on the record path (no proposal: a client that saw no node clock in the last second); with proposals the search
# outgrows the memory limit before it reaches the counterexample
queue redlock.GRANTS_ONLY_BASIS       $K fail "(tok>lastTok)" "$RC -DNO_PROPOSAL -DGRANTS_ONLY_BASIS"
# the proposed token taken only when it is above every basis answered (else the record round chooses it)
queue redlock.PROPOSAL_UNCHECKED      $K fail "(tok>lastTok)" "$RC -DPROPOSAL_UNCHECKED"
# the clock in the basis matters once two votes go unanswered (clocks agreeing here: OFF=0)
queue redlock.TOKEN_FROM_COUNTER_ONLY $K fail "(tok>lastTok)" "-DMAXT=5 -DOFF=0 -DLATE=2 -DMAXE=0 -DTOKEN_FROM_COUNTER_ONLY"
# the limit of the 41.3 design (docs/verification.md): two votes unanswered in time (one per round) and a restart of
# the one node the two rounds' answers shared, with node 0's clock ahead: an equal token. Kept as a refuted run: it
# must go on showing the limit the docs state, until the design covers it
queue redlock.LIMIT-two-unanswered     $K fail "(tok>lastTok)" "-DMAXT=5 -DOFF=5 -DLATE=2 -DMAXE=0"

# ---- Redlock's renewal (extend.lua, RedlockRenewer): small bounds (3 ticks, clocks agreeing, no restart, no late
# answer, client 1 one round), where the controls' counterexamples are a few thousand states deep; the property
# run above includes one renewal round (MAXE=1)
RE="-DMAXT=3 -DOFF=0 -DMAXR=0 -DLATE=0 -DNR1=1"
# exhaustive with the renewal: one round per client, 4 ticks, clocks agreeing, no restart, 1 vote or extend
# unanswered in time, 2 renewal rounds (23.7 million states; with a restart and node 0's clock ahead it outgrew 1.5 GB:
# that case is the bitstate run's)
queue redlock.extend-properties-a-b-c $K pass - "-DMAXT=4 -DOFF=0 -DMAXR=0 -DLATE=1 -DNR1=1 -DMAXE=2"
queue redlock.NO_EXTEND_OWNER_CHECK   $K fail "(own[n]==a)" "$RE -DNO_EXTEND_OWNER_CHECK"
queue redlock.NO_EXTEND_OWNER_CHECK-a $K fail "validUntil" "$RE -DNO_EXTEND_OWNER_CHECK -DSKIP_EXTEND_C"
queue redlock.NO_EXTEND_QUORUM        $K fail "validUntil" "$RE -DNO_EXTEND_QUORUM"

# ---- the Redis store's local queue: 3 threads of one client x 1 acquisition, another instance, 1 key wiped
# under its holder (exhaustive)
Q=local_queue.pml
queue queue.properties-fifo-one        $Q pass - ""
queue queue.property-e-liveness        $Q pass - "-DLIVENESS" liveness
queue queue.GRANT_TAIL                 $Q fail "seq[(x-1)]" "-DGRANT_TAIL"
queue queue.NO_WITHDRAW_CHECK          $Q fail "withdrawn" "-DNO_WITHDRAW_CHECK"
queue queue.NO_BYPASS                  $Q fail "acceptance cycle" "-DLIVENESS -DNO_BYPASS" liveness

wait
for name in "${runs[@]}"; do
  cat "$work/$name/line"
  [ -e "$work/$name/FAILED" ] && failed=1
done
if [ "$failed" != 0 ]; then
  echo "verification FAILED: a property failed, or a negative control found no counterexample"
  exit 1
fi
echo "verification passed"
