#!/usr/bin/env bash
# Runs every benchmark of this library and its peers against one redis-server of its own, and writes
# lock-benchmarks/RESULTS.md. Every workload runs once per peer per round, the peers in alternating order
# (BENCH_ROUNDS, default 2: about half an hour on 2 cores); BENCH_QUICK=true runs one short round, about eight
# minutes (a smoke run, wide error).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v redis-server >/dev/null || { echo "redis-server is needed (apt-get install redis-server)"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 6390)
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null; rm -rf "$dir"' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done

./mvnw -q -B -pl lock-benchmarks -am package -DskipTests
java -cp "lock-benchmarks/target/classes:$(cat lock-benchmarks/target/classpath.txt)" \
  -Dbench.redis.port="$port" -Dbench.quick="${BENCH_QUICK:-false}" -Dbench.rounds="${BENCH_ROUNDS:-}" \
  -Dbench.extras.dir=lock-benchmarks/target/bench-extras \
  io.github.distributedlock.benchmarks.BenchmarkRunner lock-benchmarks/RESULTS.md
