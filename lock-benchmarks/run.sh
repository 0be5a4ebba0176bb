#!/usr/bin/env bash
# Runs every benchmark of this library and its peers against one redis-server of its own, and writes
# lock-benchmarks/RESULTS.md. Every workload runs once per peer per round, the peers in alternating order
# (BENCH_ROUNDS, default 2: about half an hour on 2 cores); BENCH_QUICK=true runs one short round, about eight
# minutes (a smoke run, wide error).
# BENCH_WORKLOADS=w1OwnKey (comma-separated benchmark names) and BENCH_PEERS=ours,floor run only those, and
# BENCH_REPORT=<file> writes the report there instead of RESULTS.md.
# `run.sh readers [N...]` instead runs ManyReadersBenchmark (N readers of one read/write lock, default 10 100 1000
# 5000) and writes its table to lock-benchmarks/target/many-readers.md.
set -euo pipefail
cd "$(dirname "$0")/.."

. lock-benchmarks/redis-server.sh

./mvnw -q -B -pl lock-benchmarks -am package -DskipTests
classpath="lock-benchmarks/target/classes:$(cat lock-benchmarks/target/classpath.txt)"
if [ "${1:-}" = readers ]; then
  shift
  java -cp "$classpath" -Xmx2g -Dbench.redis.port="$port" -Dbench.readers.report=lock-benchmarks/target/many-readers.md \
    io.github.distributedlock.benchmarks.ManyReadersBenchmark "$@"
  exit
fi
java -cp "$classpath" \
  -Dbench.redis.port="$port" -Dbench.quick="${BENCH_QUICK:-false}" -Dbench.rounds="${BENCH_ROUNDS:-}" \
  -Dbench.workloads="${BENCH_WORKLOADS:-}" -Dbench.peers="${BENCH_PEERS:-}" \
  -Dbench.extras.dir=lock-benchmarks/target/bench-extras \
  io.github.distributedlock.benchmarks.BenchmarkRunner "${BENCH_REPORT:-lock-benchmarks/RESULTS.md}"
