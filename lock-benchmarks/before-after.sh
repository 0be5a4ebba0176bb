#!/usr/bin/env bash
# Before/after a change to the library, in alternating runs (before, after, after, before), each measuring its
# checkout's build with the same harness against the same floors, so that each run's ratios to the floor compare
# across the two sides whatever else the machine does:
#   lock-benchmarks/before-after.sh BEFORE_CHECKOUT AFTER_CHECKOUT [OUT_DIR]
# e.g. `git worktree add /tmp/before 2be572b && lock-benchmarks/before-after.sh /tmp/before .`
# Per run: W1-W5 of ours, floor and token-floor (one JMH round: BENCH_ROUNDS=1), then the uncontended cost
# (`run.sh cost`, 3 rounds), then 50,000 renewed holds (`run.sh many-locks 50000`, ours, 30 s). The pages go to
# OUT_DIR (lock-benchmarks/target/before-after): before-1.md, after-1.md, ...; about 40 minutes on 2 cores. Run it
# on a quiet machine: at a load of 7 or more the throughput ratios of two runs of one checkout differed by 1.5x.
# Both sides are measured by ONE harness, the after checkout's: its lock-benchmarks/ (run.sh, the JMH settings, the
# peers) is copied over the before checkout's (so give it a worktree of its own), since the harness changes with the
# library (between 2be572b and issue 40's end, warm-up 3 -> 1 iteration and the token-floor peer: W1 read 0.99x the
# floor before and 0.25x after with each side's own harness). If the copied harness does not compile against the
# older library (an API it uses changed), adapt the copy there, run again with KEEP_BEFORE_HARNESS=true (no new copy),
# and say so beside the results.
set -euo pipefail
before="$(cd "$1" && pwd)"
after="$(cd "$2" && pwd)"
if [ "$before" != "$after" ] && [ "${KEEP_BEFORE_HARNESS:-false}" != true ]; then
  rm -rf "$before/lock-benchmarks"
  mkdir -p "$before/lock-benchmarks"
  (cd "$after/lock-benchmarks" && tar --exclude=./target -cf - .) | (cd "$before/lock-benchmarks" && tar -xf -)
fi
out="$(mkdir -p "${3:-lock-benchmarks/target/before-after}" && cd "${3:-lock-benchmarks/target/before-after}" && pwd)"
run() { # label, checkout, index
  echo "== $1 $3: $(git -C "$2" rev-parse --short HEAD), start $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/log"
  (cd "$2" && BENCH_ROUNDS=1 BENCH_SECTIONS=locks \
    BENCH_WORKLOADS=w1OwnKey,w2OwnKeys16Threads,w3OneKey8Threads,w3xOneKey8Instances,w4Reentrant,w5ReadWrite \
    BENCH_PEERS=ours,floor,token-floor BENCH_REPORT="$out/$1-$3.md" lock-benchmarks/run.sh > "$out/$1-$3.log" 2>&1)
  (cd "$2" && BENCH_COST_ROUNDS=3 lock-benchmarks/run.sh cost ours,floor,token-floor >> "$out/$1-$3.log" 2>&1 \
    && cp lock-benchmarks/target/uncontended-cost.md "$out/cost-$1-$3.md")
  (cd "$2" && BENCH_PEERS=ours BENCH_MANY_SECONDS=30 lock-benchmarks/run.sh many-locks 50000 >> "$out/$1-$3.log" 2>&1 \
    && cp lock-benchmarks/target/many-locks.md "$out/many-$1-$3.md")
  echo "== $1 $3 end $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/log"
}
run before "$before" 1
run after "$after" 1
run after "$after" 2
run before "$before" 2
echo "pages in $out"
