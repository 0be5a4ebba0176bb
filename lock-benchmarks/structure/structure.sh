#!/usr/bin/env bash
# The structure figures of issue 40 for one checkout of the library (default: this one), so that a before/after
# table is measured the same way on both sides:
#   lock-benchmarks/structure/structure.sh [CHECKOUT_DIR]
# 1. the files and lines on the path of one uncontended @DistributedLock call (acquire + body + release), after a
#    warm-up call: OneCallProbe runs under the JaCoCo agent, which is reset between the two calls; a main source
#    file counts when at least one of its lines ran in the second call, and its lines are `wc -l` of the file; the
#    Redis commands and scripts that call sent are read off `redis-cli monitor`;
# 2. methods and constructors of the main code with 7 parameters or more (javap of the compiled classes; lambdas and
#    other synthetic methods left out; a record's canonical constructor counted apart);
# 3. classes of the main code that extend another class of the library.
# Needs redis-server and a JDK; starts its own redis-server on a free port and stops it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checkout="$(cd "${1:-$here/../..}" && pwd)"
module="$checkout/lock-spring-boot-autoconfigure"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${redis_pid:-}" ] && kill "$redis_pid" 2>/dev/null; [ -n "${KEEP:-}" ] && cp -r "$work" "$KEEP"; rm -rf "$work"' EXIT
jacoco_version=0.8.15
m2="${MAVEN_REPO:-$HOME/.m2/repository}"
agent="$m2/org/jacoco/org.jacoco.agent/$jacoco_version/org.jacoco.agent-$jacoco_version-runtime.jar"
cli="$m2/org/jacoco/org.jacoco.cli/$jacoco_version/org.jacoco.cli-$jacoco_version-nodeps.jar"
if [ ! -f "$agent" ] || [ ! -f "$cli" ]; then
  (cd "$checkout" && ./mvnw -q dependency:get -Dartifact=org.jacoco:org.jacoco.agent:$jacoco_version:jar:runtime \
    && ./mvnw -q dependency:get -Dartifact=org.jacoco:org.jacoco.cli:$jacoco_version:jar:nodeps)
fi

(cd "$checkout" && ./mvnw -q -pl lock-spring-boot-autoconfigure -am compile \
  dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" -Dmdep.includeScope=test >/dev/null)
classes="$module/target/classes"
cp="$classes:$(cat "$work/cp.txt")"
mkdir -p "$work/probe"
javac -nowarn -parameters -d "$work/probe" -cp "$cp" "$here/OneCallProbe.java"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --save '' --appendonly no --daemonize no >/dev/null &
redis_pid=$!
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
java -javaagent:"$agent"=output=none -cp "$work/probe:$cp" probe.OneCallProbe "$work/call.exec" "$port" &
probe_pid=$!
# the monitor sees the warm-up too: only the commands after the warm-up's release count (the second call's key)
redis-cli -p "$port" monitor > "$work/monitor.txt" &
wait "$probe_pid"
sleep 0.5

java -jar "$cli" report "$work/call.exec" --classfiles "$classes" --csv "$work/call.csv" >/dev/null
files=$(awk -F, 'NR > 1 && $9 > 0 { cls = $3; sub(/\..*/, "", cls); print $2 "/" cls }' "$work/call.csv" | sort -u)
total=0
count=0
for f in $files; do
  src="$module/src/main/java/$(echo "$f" | tr . /).java"
  src="${src%/*}"; src="$(echo "$f" | sed 's/\./\//g')"; src="$module/src/main/java/$src.java"
  if [ -f "$src" ]; then
    total=$((total + $(wc -l < "$src"))); count=$((count + 1))
  fi
done
echo "checkout: $checkout ($(git -C "$checkout" rev-parse --short HEAD))"
echo "one uncontended @DistributedLock call: $count Java files, $total lines"
# the measured call's commands: those naming its key (a script is sent as EVALSHA of its digest; the library builds
# some scripts from several .lua files, so digests are counted, not files)
calls=$(grep ':order-1"' "$work/monitor.txt" | grep -vc ' lua\]' || true)
inside=$(grep ':order-1"' "$work/monitor.txt" | grep -c ' lua\]' || true)
shas=$(grep ':order-1"' "$work/monitor.txt" | grep -io '"evalsha" "[0-9a-f]*"' | grep -o '[0-9a-f]\{40\}' | sort -u | grep -c . || true)
echo "Redis requests of the measured call: $calls ($shas distinct scripts), commands run inside scripts: $inside"
echo "files on the path:"; for f in $files; do echo "  $f"; done

# methods and constructors with 7 parameters or more
find "$classes" -name '*.class' > "$work/classes.txt"
javap -p -cp "$classes" $(sed "s|$classes/||; s|\.class$||; s|/|.|g" "$work/classes.txt") 2>/dev/null > "$work/javap.txt"
awk '
  /^([a-z]+ )*(final )?(class|interface|record|enum) / || /^(public |protected |private )?(abstract |final |static |sealed |non-sealed )*(class|interface|record|enum)/ {
    cls = $0; is_record = ($0 ~ /extends java.lang.Record/)
    fq = $0; sub(/^.*(class|interface|record|enum) /, "", fq); sub(/[ <].*$/, "", fq) }
  /\(/ && !/lambda\$/ && !/access\$/ && !/\$deserializeLambda/ {
    args = $0; sub(/^[^(]*\(/, "", args); sub(/\).*$/, "", args)
    gsub(/<[^<>]*>/, "", args); gsub(/<[^<>]*>/, "", args); gsub(/<[^<>]*>/, "", args)
    n = (args == "") ? 0 : split(args, parts, ",")
    if (n >= 7) { name = $0; sub(/\(.*/, "", name); n_all++
      nm = name; sub(/^.* /, "", nm)
      if (is_record && nm == fq) rec++
      print "  " n " " cls " :: " $0 } }
  END { print "methods and constructors with 7 or more parameters: " n_all+0 " (of them in records: " rec+0 ")" }' "$work/javap.txt" > "$work/params.txt"
tail -1 "$work/params.txt"; head -n -1 "$work/params.txt" | sed 's/ {$//' | sort -rn

echo "classes extending another class of the library:"
grep -E '^(public |protected |private )?(abstract |final |static )*class .* extends io\.github\.distributedlock\.' "$work/javap.txt" \
  | grep -vE 'Exception|Error' | sed 's/ {$//; s/^/  /' || true
