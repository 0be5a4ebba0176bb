# Sourced by run.sh and soak.sh: starts a redis-server of their own on a free loopback port (never 6379), sets
# $port, and stops it when the script exits. start_redis and stop_redis start and stop another one (a fresh
# server for each run of a runner that wants one).
command -v redis-server >/dev/null || { echo "redis-server is needed (apt-get install redis-server)"; exit 1; }

start_redis() {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 6390)
  dir=$(mktemp -d)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" &
  redis_pid=$!
  until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
}

stop_redis() {
  kill "$redis_pid" 2>/dev/null || true
  wait "$redis_pid" 2>/dev/null || true
  rm -rf "$dir"
}

trap stop_redis EXIT
start_redis
