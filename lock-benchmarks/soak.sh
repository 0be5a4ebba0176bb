#!/usr/bin/env bash
# The soak run (not part of CI): two JVMs x 16 threads x 10 minutes on 100 keys through a fenced counter per
# key, one JVM killed with SIGKILL and restarted every minute; prints overlapping holds, lost increments and
# token regressions (all must be 0) and acquisitions per second. SOAK_MINUTES=2 for a short run.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v redis-server >/dev/null || { echo "redis-server is needed (apt-get install redis-server)"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 6391)
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null; rm -rf "$dir"' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done

./mvnw -q -B -pl lock-benchmarks -am package -DskipTests
java -cp "lock-benchmarks/target/classes:$(cat lock-benchmarks/target/classpath.txt)" \
  -Dsoak.redis.port="$port" -Dsoak.minutes="${SOAK_MINUTES:-10}" -Dsoak.kill.seconds="${SOAK_KILL_SECONDS:-60}" \
  io.github.distributedlock.benchmarks.SoakRunner
