#!/usr/bin/env bash
# Runs the benchmarks of this library and its peers and writes lock-benchmarks/RESULTS.md and its charts
# (lock-benchmarks/charts/*.png), in about 15 minutes on 2 cores, the build included (ResultsRunner):
#   lock-benchmarks/run.sh
# On a redis-server of its own (and, for Redlock and the cluster, servers of their own), in BENCH_ROUNDS rounds (3)
# that reverse the peers' order every round: W1-W5 of every peer (JMH, sample time: throughput and latency
# percentiles in one fork), the semaphore's S1 and S2 against Redisson, the uncontended pair's cost in turns of 500
# pairs (with the floor with a fencing token), Redlock on 3 and 5 nodes against RedissonRedLock, and classic against
# sharded notifications on a 3-primary cluster. Every ratio is taken per round and reported as median
# [lowest-highest]. The page says when and where it ran, the load (`uptime`) at the start and the end, and how long
# the run took; the log goes to lock-benchmarks/target/run.log.
# BENCH_QUICK=true runs one round of short iterations (about 5 minutes: a check of the tooling, wide error).
# BENCH_SECTIONS=locks,semaphores,cost,redlock,cluster (comma-separated) runs only those sections;
# BENCH_WORKLOADS=w1OwnKey (benchmark names; w3mOneKey2Instances4ThreadsEach adds W3m) and BENCH_PEERS=ours,floor
# run only those workloads and peers; BENCH_REPORT=<file> writes the page there instead of RESULTS.md (the charts
# go to charts/ beside it). BENCH_ITERATIONS (2) and BENCH_ITERATION_MS (1000) set the JMH measurement iterations.
#
# The other modes write their own tables to lock-benchmarks/target/:
# `run.sh annotation` runs W6, AnnotationRunner (the annotation's overhead over template.execute, with and without
# meter and observation registries; BENCH_ANNOTATION_ROUNDS rounds, default 3) and writes
# lock-benchmarks/target/annotation.md.
# `run.sh readers [N...]` instead runs ManyReadersBenchmark (N readers of one read/write lock, default 10 100 1000
# 5000) and writes its table to lock-benchmarks/target/many-readers.md.
# `run.sh many-locks [N...]` runs W7, ManyLocksBenchmark (one JVM holds N auto-renewed locks for 60 s; default
# 10000 50000), each peer in a JVM of its own on a fresh redis-server, the peers in alternating order per N, and
# writes its table to lock-benchmarks/target/many-locks.md; BENCH_MANY_SECONDS=10 shortens the hold (smoke run),
# BENCH_PEERS=redisson-after-churn runs Redisson after 500 watchdog lock+unlock pairs (see RedissonHolder).
# `run.sh cost [PEERS]` runs UncontendedCost: per uncontended W1 pair, client CPU, allocation, Redis CPU, requests and
# commands inside scripts for each peer (comma-separated PEERS, default all), BENCH_COST_ROUNDS rounds (5) of
# BENCH_COST_PAIRS pairs per peer (10000), the peers taking turns of BENCH_COST_BLOCK pairs (500) in alternating
# order, ratios per round; writes lock-benchmarks/target/uncontended-cost.md. The peer ours-scripts (not in the default
# list) runs this library's reentrant scripts with its arguments the way the floor runs its own (synchronous Lettuce,
# no lock client): beside ours and floor it splits the W1 gap into the client's part and the scripts' part; the peer
# string-scripts is a prototype of an uncontended hold as a string key (see ScriptPeer), beside ours-scripts. The peer
# ours-scripts@DIR reads the same script files from DIR instead (say another commit's checkout): a change to the scripts
# against the jar's, in alternating rounds of one run; token-floor is the string prototype sent the floor's arguments
# (the floor plus a fencing token).
# `run.sh hand-over [PEERS]` runs HandOverCost: W3x's hand-overs of one key between BENCH_HANDOVER_CLIENTS clients of one
# thread each (8), per peer (comma-separated PEERS, default ours,si-spin,floor) BENCH_HANDOVER_ROUNDS rounds (3) of
# BENCH_HANDOVER_SECONDS (8) in alternating order: acquisitions/s, fairness, and per acquisition the requests, the
# commands inside scripts, Redis µs in scripts and Redis CPU; writes lock-benchmarks/target/hand-over-cost.md.
# BENCH_JAVA_OPTS adds JVM options (such as a JFR recording: -XX:StartFlightRecording=filename=w1.jfr).
# `run.sh reactive-wait [N]` runs W8, ReactiveWaitBenchmark (N concurrent reactive acquisitions of one key,
# default 1000; BENCH_REACTIVE_ROUNDS rounds per peer, default 5) and writes lock-benchmarks/target/reactive-wait.md.
# `run.sh chaos` runs ChaosRunner: the chaos test's checker (never two bodies inside, no lost update, tokens
# increasing) on 2 clients x 4 threads of one key per library under connection churn (CLIENT KILL 30-400 ms apart,
# now and then kill -STOP), for this library, Redisson and Spring Integration (both modes), then for this library
# also churn plus kill -9 of a holder JVM, a Sentinel failover and a partition through a TCP proxy, each on
# redis-server processes of its own; CHAOS_SECONDS per run (default 600), CHAOS_PEERS=ours,redisson,si-spin,si-pubsub,
# CHAOS_FAULTS=churn,holder-kill,failover,partition,semaphore,semaphore-failover (the last two: the churn and the
# failover on a semaphore of 3 permits; not in the default list); appends its table to lock-benchmarks/target/chaos.md.
# `run.sh semaphore` runs S1 and S2, SemaphoreBenchmarks (a semaphore of 4 permits on one key: one thread uncontended,
# and 2 clients x 8 threads), for this library and Redisson's RPermitExpirableSemaphore in alternating order
# (BENCH_SEMAPHORE_ROUNDS, default 3: about 10 minutes on 2 cores), counts the client requests per pair, and writes
# lock-benchmarks/target/semaphore.md.
# `run.sh cluster-notifications [N...]` runs ClusterNotificationRunner: classic against sharded notifications on a
# Redis Cluster of N primaries with a replica each (default 3 and 6; redis-server processes of its own): cluster-bus
# messages per notification, release-to-waiter time, contended throughput (this library only); appends its table to
# lock-benchmarks/target/cluster-notifications.md; BENCH_CLUSTER_WAKEUPS (200), BENCH_CLUSTER_SECONDS (10).
# `run.sh redlock` runs RedlockBenchmark: this library's store=redlock against Redisson's RedissonRedLock on N
# redis-server processes of its own (BENCH_NODES=3,5 by default; 3 or 5 for one), BENCH_ROUNDS rounds (default 5)
# in alternating order, each measuring uncontended lock+unlock pairs/s with p50/p99 and one key contended by 2
# clients x BENCH_REDLOCK_THREADS threads (4), BENCH_REDLOCK_SECONDS each (20) after BENCH_REDLOCK_WARMUP (10): about
# 20 minutes with the defaults; then counts the commands per pair on every node. Writes
# lock-benchmarks/target/redlock.md (ratios ours/Redisson per round and their spread). BENCH_REDLOCK_FROZEN=true runs
# every contended measurement with the last node frozen (kill -STOP) throughout: the frozen-node case.
# `run.sh redlock-chaos [SECONDS]` runs RedlockChaosRunner (default 600 s): 2 clients x 4 threads of this library's
# store=redlock contend on 3 keys over 3 redis-server processes while, in turn on one node, kill -9 and a restart
# after the delayed-restart time, kill -STOP/-CONT for longer than the per-node timeout, and CLIENT KILL every
# 30-400 ms; appends the checker's table (overlaps, lost updates, token regressions per key) to
# lock-benchmarks/target/redlock-chaos.md. REDLOCK_FAULTS=kill,stop,churn picks the faults (kill-majority: kill -9 of
# 2 of the 3 nodes); REDLOCK_RESTART_DELAY_MS (default 3000, longer than the 2 s lease) set to 0 restarts killed nodes
# at once: with REDLOCK_FAULTS=kill-majority, the negative control (the checker should see two holders).
# BENCH_MAX_LOAD=1.5 makes every run first wait (up to 20 minutes, polling every minute) for the 1-minute load
# average to fall under it; the load seen is printed either way.
set -euo pipefail
cd "$(dirname "$0")/.."
script_started=$(date +%s)

. lock-benchmarks/redis-server.sh

./mvnw -q -B -pl lock-benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
build_seconds=$(($(date +%s) - script_started))
classpath="lock-benchmarks/target/classes:$(cat lock-benchmarks/target/classpath.txt)"

# Prints the 1-minute load average and, with BENCH_MAX_LOAD, waits for it to fall under that first.
wait_for_quiet() {
  local load waited=0
  load=$(cut -d' ' -f1 /proc/loadavg)
  while [ -n "${BENCH_MAX_LOAD:-}" ] && awk -v l="$load" -v m="$BENCH_MAX_LOAD" 'BEGIN { exit !(l > m) }' \
      && [ "$waited" -lt 20 ]; do
    echo "load average $load > $BENCH_MAX_LOAD: waiting a minute ($waited of 20)"
    sleep 60
    waited=$((waited + 1))
    load=$(cut -d' ' -f1 /proc/loadavg)
  done
  echo "load average before the run: $load ($(uptime))"
}

if [ "${1:-}" = many-locks ]; then
  shift
  report=lock-benchmarks/target/many-locks.md
  rm -f "$report"
  peers=(${BENCH_PEERS:+${BENCH_PEERS//,/ }})
  [ ${#peers[@]} -gt 0 ] || peers=(ours redisson)
  counts=("$@")
  [ ${#counts[@]} -gt 0 ] || counts=(10000 50000)
  for n in "${counts[@]}"; do
    for peer in "${peers[@]}"; do
      stop_redis
      start_redis
      wait_for_quiet
      java -cp "$classpath" -Xmx2g -Dbench.redis.port="$port" -Dbench.many.seconds="${BENCH_MANY_SECONDS:-60}" \
        -Dbench.many.report="$report" io.github.distributedlock.benchmarks.ManyLocksBenchmark "$peer" "$n"
    done
    peers=($(printf '%s\n' "${peers[@]}" | tac))
  done
  cat "$report"
  exit
fi
if [ "${1:-}" = cost ]; then
  shift
  wait_for_quiet
  java -cp "$classpath" -Xmx1g -Dbench.redis.port="$port" -Dbench.cost.rounds="${BENCH_COST_ROUNDS:-5}" \
    -Dbench.cost.pairs="${BENCH_COST_PAIRS:-10000}" -Dbench.cost.block="${BENCH_COST_BLOCK:-500}" ${BENCH_JAVA_OPTS:-} \
    io.github.distributedlock.benchmarks.UncontendedCost lock-benchmarks/target/uncontended-cost.md "$@"
  exit
fi
if [ "${1:-}" = hand-over ]; then
  shift
  wait_for_quiet
  java -cp "$classpath" -Xmx1g -Dbench.redis.port="$port" -Dbench.handover.rounds="${BENCH_HANDOVER_ROUNDS:-3}" \
    -Dbench.handover.clients="${BENCH_HANDOVER_CLIENTS:-8}" -Dbench.handover.seconds="${BENCH_HANDOVER_SECONDS:-8}" \
    ${BENCH_JAVA_OPTS:-} io.github.distributedlock.benchmarks.HandOverCost lock-benchmarks/target/hand-over-cost.md "$@"
  exit
fi
if [ "${1:-}" = reactive-wait ]; then
  shift
  wait_for_quiet
  java -cp "$classpath" -Xmx1g -Dbench.redis.port="$port" -Dbench.reactive.rounds="${BENCH_REACTIVE_ROUNDS:-5}" \
    -Dbench.reactive.report=lock-benchmarks/target/reactive-wait.md \
    io.github.distributedlock.benchmarks.ReactiveWaitBenchmark "$@"
  exit
fi
if [ "${1:-}" = chaos ]; then
  wait_for_quiet
  java -cp "$classpath" -Xmx1g -Dchaos.seconds="${CHAOS_SECONDS:-600}" \
    -Dchaos.peers="${CHAOS_PEERS:-ours,redisson,si-spin,si-pubsub}" \
    -Dchaos.faults="${CHAOS_FAULTS:-churn,holder-kill,failover,partition}" \
    -Dchaos.report=lock-benchmarks/target/chaos.md io.github.distributedlock.benchmarks.ChaosRunner
  exit
fi
if [ "${1:-}" = redlock ]; then
  wait_for_quiet
  java -cp "$classpath" -Xmx1g -Dbench.redlock.nodes="${BENCH_NODES:-3,5}" -Dbench.redlock.rounds="${BENCH_ROUNDS:-5}" \
    -Dbench.redlock.seconds="${BENCH_REDLOCK_SECONDS:-20}" -Dbench.redlock.warmup="${BENCH_REDLOCK_WARMUP:-10}" \
    -Dbench.redlock.threads="${BENCH_REDLOCK_THREADS:-4}" -Dbench.redlock.frozen="${BENCH_REDLOCK_FROZEN:-false}" \
    io.github.distributedlock.benchmarks.RedlockBenchmark lock-benchmarks/target/redlock.md
  exit
fi
if [ "${1:-}" = redlock-chaos ]; then
  wait_for_quiet
  java -cp "$classpath" -Xmx1g -Dchaos.seconds="${2:-600}" -Dchaos.report=lock-benchmarks/target/redlock-chaos.md \
    -Dchaos.redlock.faults="${REDLOCK_FAULTS:-kill,stop,churn}" -Dchaos.redlock.restart-delay="${REDLOCK_RESTART_DELAY_MS:-3000}" \
    io.github.distributedlock.benchmarks.RedlockChaosRunner
  exit
fi
if [ "${1:-}" = cluster-notifications ]; then
  shift
  wait_for_quiet
  java -cp "$classpath" -Dbench.cluster.wakeups="${BENCH_CLUSTER_WAKEUPS:-200}" \
    -Dbench.cluster.seconds="${BENCH_CLUSTER_SECONDS:-10}" \
    io.github.distributedlock.benchmarks.ClusterNotificationRunner lock-benchmarks/target/cluster-notifications.md "$@"
  exit
fi
if [ "${1:-}" = semaphore ]; then
  wait_for_quiet
  java -cp "$classpath" -Dbench.redis.port="$port" -Dbench.semaphore.rounds="${BENCH_SEMAPHORE_ROUNDS:-3}" \
    -Dbench.extras.dir=lock-benchmarks/target/bench-extras \
    io.github.distributedlock.benchmarks.SemaphoreRunner lock-benchmarks/target/semaphore.md
  exit
fi
if [ "${1:-}" = annotation ]; then
  wait_for_quiet
  java -cp "$classpath" -Dbench.redis.port="$port" -Dbench.annotation.rounds="${BENCH_ANNOTATION_ROUNDS:-3}" \
    io.github.distributedlock.benchmarks.AnnotationRunner lock-benchmarks/target/annotation.md
  exit
fi
if [ "${1:-}" = readers ]; then
  shift
  java -cp "$classpath" -Xmx2g -Dbench.redis.port="$port" -Dbench.readers.report=lock-benchmarks/target/many-readers.md \
    io.github.distributedlock.benchmarks.ManyReadersBenchmark "$@"
  exit
fi
if [ -n "${1:-}" ]; then
  echo "Unknown mode '$1' (see the comment at the top of $0)"
  exit 2
fi
mkdir -p lock-benchmarks/target
wait_for_quiet | tee lock-benchmarks/target/run.log
# the run's time: the build and the measurements, not a wait for a quiet machine
started=$(($(date +%s) - build_seconds))
java -cp "$classpath" -Xmx1g -Djava.awt.headless=true \
  -Dbench.redis.port="$port" -Dbench.quick="${BENCH_QUICK:-false}" -Dbench.rounds="${BENCH_ROUNDS:-}" \
  -Dbench.sections="${BENCH_SECTIONS:-}" -Dbench.workloads="${BENCH_WORKLOADS:-}" -Dbench.peers="${BENCH_PEERS:-}" \
  -Dbench.iterations="${BENCH_ITERATIONS:-2}" -Dbench.iteration.ms="${BENCH_ITERATION_MS:-1000}" \
  -Dbench.started="$started" -Dbench.extras.dir=lock-benchmarks/target/bench-extras \
  io.github.distributedlock.benchmarks.ResultsRunner "${BENCH_REPORT:-lock-benchmarks/RESULTS.md}" \
  2>&1 | tee -a lock-benchmarks/target/run.log
echo "load average after the run: $(uptime)" | tee -a lock-benchmarks/target/run.log
