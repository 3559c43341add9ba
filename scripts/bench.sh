#!/usr/bin/env bash
# Throughput and memory of lemplint on generated nginx trees of about 1, 10 and 100 MB
# (../shared/tools/gen_nginx_corpus.py) and on ../shared/corpus, compared with crossplane's
# parse and `nginx -t` on the same trees when they are available.
#
#   scripts/bench.sh            # 1 and 10 MB
#   scripts/bench.sh 1 10 100   # sizes in MB
#
# Prints one line per measurement: median wall time of 5 runs, MB/s, peak RSS. No thresholds:
# numbers, not tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1 10); fi
cargo build --release --quiet
bin=target/release/lemplint
host=(--isolated --cpus 2 --memory 4GiB)

runs=5
# median wall seconds of $runs runs (timed by the shell to the microsecond, without a
# wrapper: /usr/bin/time rounds to 10 ms and adds its own start-up) and the peak RSS in KB
# of one more run under /usr/bin/time
measure() {
  local times=() rss tmp start end wrap=()
  tmp=$(mktemp)
  for _ in $(seq "$runs"); do
    # A single run (the slow reference tools) is timed and measured at once.
    [ "$runs" -eq 1 ] && wrap=(/usr/bin/time -o "$tmp" -f "%M")
    start=$EPOCHREALTIME
    "${wrap[@]}" "$@" >/dev/null 2>&1 || true
    end=$EPOCHREALTIME
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')")
  done
  [ "$runs" -eq 1 ] || /usr/bin/time -o "$tmp" -f "%M" "$@" >/dev/null 2>&1 || true
  rss=$(tail -1 "$tmp")
  rm -f "$tmp"
  printf '%s %s\n' "$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")" "$rss"
}

report() { # label bytes seconds rss
  awk -v l="$1" -v b="$2" -v s="$3" -v r="$4" 'BEGIN { mb=b/1e6; printf "%-34s %7.1f MB %9.1f ms %7.0f MB/s %7.0f MiB RSS (%.1fx input)\n", l, mb, s*1000, (s>0?mb/s:0), r/1024, r*1024/b }'
}

crossplane_py=target/crossplane-venv/bin/python
for mb in "${sizes[@]}"; do
  n=$((mb * 900))
  tree=target/bench-corpus-$n
  [ -f "$tree/nginx.conf" ] || python3 ../shared/tools/gen_nginx_corpus.py "$tree" -n "$n" --seed 1 >/dev/null
  bytes=$(find "$tree" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
  read -r s r < <(measure "$bin" parse "$tree/nginx.conf"); report "parse ${mb}MB (json to /dev/null)" "$bytes" "$s" "$r"
  read -r s r < <(measure "$bin" lint "${host[@]}" --format concise "$tree"); report "lint ${mb}MB (all rules)" "$bytes" "$s" "$r"
  lint_s=$s
  read -r s r < <(measure "$bin" fix --diff "${host[@]}" "$tree"); report "fix --diff ${mb}MB" "$bytes" "$s" "$r"
  read -r s r < <(measure "$bin" tune "${host[@]}" "$tree"); report "tune ${mb}MB" "$bytes" "$s" "$r"
  # The same tree with one finding (and fix) per vhost: reporting and fixing at scale.
  noisy=$tree-findings
  if [ ! -d "$noisy" ]; then
    cp -r "$tree" "$noisy"
    find "$noisy/sites-enabled" -name '*.conf' -exec sed -i 's/^    listen 80;$/    listen 80;\n    server_tokens on;/' {} +
  fi
  read -r s r < <(measure "$bin" lint "${host[@]}" --format concise "$noisy"); report "lint ${mb}MB, a finding per vhost" "$bytes" "$s" "$r"
  read -r s r < <(measure "$bin" lint "${host[@]}" --format sarif "$noisy"); report "  same, SARIF output" "$bytes" "$s" "$r"
  read -r s r < <(measure "$bin" fix --diff "${host[@]}" "$noisy"); report "fix --diff ${mb}MB, a fix per vhost" "$bytes" "$s" "$r"
  if [ -x "$crossplane_py" ]; then
    # The slow reference tools run once per size past 1 MB.
    [ "$mb" -gt 1 ] && runs=1
    read -r s r < <(measure "$crossplane_py" -c "import crossplane,sys; crossplane.parse(sys.argv[1])" "$tree/nginx.conf")
    report "crossplane parse ${mb}MB" "$bytes" "$s" "$r"
    awk -v a="$s" -v b="$lint_s" 'BEGIN { if (b>0) printf "  lemplint lint is %.0fx faster than crossplane parse\n", a/b }'
  fi
  if command -v nginx >/dev/null && [ "$mb" -le 10 ]; then
    read -r s r < <(measure nginx -t -q -p "$PWD/$tree/" -c nginx.conf); report "nginx -t ${mb}MB" "$bytes" "$s" "$r"
    awk -v a="$s" -v b="$lint_s" 'BEGIN { if (b>0) printf "  lemplint lint is %.0fx faster than nginx -t\n", a/b }'
  fi
  runs=5
done
cbytes=$(find ../shared/corpus -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
read -r s r < <(measure "$bin" lint --isolated --format concise ../shared/corpus); report "lint ../shared/corpus" "$cbytes" "$s" "$r"
one=fixtures/stacks/debian-php/etc/nginx/sites-enabled/example.org
read -r s r < <(measure "$bin" lint --isolated --format concise "$one"); report "lint one file (pre-commit)" "$(wc -c <"$one")" "$s" "$r"
