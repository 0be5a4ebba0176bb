#!/usr/bin/env bash
# The soak run (not part of CI): two JVMs x 16 threads x 10 minutes on 100 keys through a fenced counter per
# key, one JVM killed with SIGKILL and restarted every minute; prints overlapping holds, lost increments and
# token regressions (all must be 0) and acquisitions per second. SOAK_MINUTES=2 for a short run.
set -euo pipefail
cd "$(dirname "$0")/.."

. lock-benchmarks/redis-server.sh

./mvnw -q -B -pl lock-benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
java -cp "lock-benchmarks/target/classes:$(cat lock-benchmarks/target/classpath.txt)" \
  -Dsoak.redis.port="$port" -Dsoak.minutes="${SOAK_MINUTES:-10}" -Dsoak.kill.seconds="${SOAK_KILL_SECONDS:-60}" \
  io.github.distributedlock.benchmarks.SoakRunner
