#!/usr/bin/env bash
# Runs every benchmark of this library and its peers against one redis-server of its own, and writes
# lock-benchmarks/RESULTS.md. Every workload runs once per peer per round, the peers in alternating order
# (BENCH_ROUNDS, default 2: about half an hour on 2 cores); BENCH_QUICK=true runs one short round, about eight
# minutes (a smoke run, wide error).
set -euo pipefail
cd "$(dirname "$0")/.."

. lock-benchmarks/redis-server.sh

./mvnw -q -B -pl lock-benchmarks -am package -DskipTests
java -cp "lock-benchmarks/target/classes:$(cat lock-benchmarks/target/classpath.txt)" \
  -Dbench.redis.port="$port" -Dbench.quick="${BENCH_QUICK:-false}" -Dbench.rounds="${BENCH_ROUNDS:-}" \
  -Dbench.extras.dir=lock-benchmarks/target/bench-extras \
  io.github.distributedlock.benchmarks.BenchmarkRunner lock-benchmarks/RESULTS.md
