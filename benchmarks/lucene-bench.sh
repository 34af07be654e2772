#!/usr/bin/env bash
# FTS5 against Lucene: fast recall, HNSW against the exact scan, index sizes, deletion, quality.
# Run on an idle machine:   bash benchmarks/lucene-bench.sh [REPO] [OUT_DIR]
# (REPO defaults to the checkout holding this script, else /work/main; build the jar first with
#  mvn -q -B -DskipTests -pl benchmarks -am package, or the script builds it when it is missing.)
# Environment: SIZES (10000,100000,1000000), VECTOR_SIZES (100000,1000000), DIMS (512),
#   ARCHIVES (/tmp/jiyi-bench-archives; built archives are kept there and reused), JAVA, SKIP_QUALITY=1,
#   LEXICAL_ARGS (extra harness options, e.g. "--no-recall" or "--queries 100"),
#   JAVA_OPTS (e.g. "--add-modules jdk.incubator.vector": Lucene's SIMD vector code; the jiyi launcher
#   does not pass it today, so the default measures what jiyi runs).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -f "$here/benchmarks/pom.xml" ]; then default_repo="$here"; else default_repo=/work/main; fi
repo="${1:-$default_repo}"
out="${2:-/tmp/lucene-bench-$(date +%Y%m%d-%H%M%S)}"
sizes="${SIZES:-10000,100000,1000000}"
vector_sizes="${VECTOR_SIZES:-100000,1000000}"
dims="${DIMS:-512}"
archives="${ARCHIVES:-/tmp/jiyi-bench-archives}"
java_bin="${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
mkdir -p "$out" "$archives"
jar="$repo/benchmarks/target/benchmarks.jar"
if [ ! -f "$jar" ]; then
  (cd "$repo" && mvn -q -B -DskipTests -pl benchmarks -am package)
fi
# A heap large enough for 1M documents with 512-dim vectors while Lucene merges HNSW graphs.
# shellcheck disable=SC2086
run() { (cd "$repo" && "$java_bin" --enable-native-access=ALL-UNNAMED -Xmx8g ${JAVA_OPTS:-} -cp "$jar" dev.jiyi.bench.Bench "$@"); }

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -Is)" | tee "$out/summary.txt"

echo "== 1, 3, 4: fast recall FTS5 vs Lucene at $sizes (+ build, size, deletion at 100000)" | tee -a "$out/summary.txt"
t0=$SECONDS
run lucene --sizes "$sizes" --archives "$archives" --json "$out/lexical.json" ${LEXICAL_ARGS:-} \
  2>&1 | tee "$out/lexical.txt"
lexical_s=$((SECONDS - t0))

echo "== 2, 3: HNSW (float, int8; knnCandidates 100,50,200) vs exact scan at $vector_sizes x $dims" | tee -a "$out/summary.txt"
t0=$SECONDS
run vectors --sizes "$vector_sizes" --dimensions "$dims" --archives "$archives" \
  --json "$out/vectors.json" 2>&1 | tee "$out/vectors.txt"
vectors_s=$((SECONDS - t0))

if [ "${SKIP_QUALITY:-0}" != 1 ] && [ -d "$repo/../shared/datasets" ]; then
  echo "== 5: recall quality, fts5 then lucene" | tee -a "$out/summary.txt"
  for index in fts5 lucene; do
    run recall --index "$index" 2>"$out/quality-$index.log" | tee "$out/quality-$index.txt"
  done
fi

{
  echo
  echo "== tables"
  grep -E "memories|^  (query|window|common|frequent|long) |deletions|Lucene index build|FTS5 index build|archive load" "$out/lexical.txt" || true
  sed -n '/growth from/,/load average at end/p' "$out/lexical.txt"
  grep -E "memories with|Lucene (float|int8)|search \(k|exact scan  |hnsw " "$out/vectors.txt" || true
  for index in fts5 lucene; do
    [ -f "$out/quality-$index.txt" ] && { echo "-- quality, $index"; cat "$out/quality-$index.txt"; }
  done
  echo "== wall time: lexical ${lexical_s} s, vectors ${vectors_s} s"
  echo "== load at end: $(cut -d' ' -f1-3 /proc/loadavg); all output in $out"
} | tee -a "$out/summary.txt"
