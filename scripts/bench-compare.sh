#!/usr/bin/env bash
# HEAD against another commit, on the same machine in one run: interleaved rounds, so a busy
# neighbour slows both alike. Prints, per case, the median and minimum wall time of each
# binary, their ratio, and each one's peak RSS.
#
#   scripts/bench-compare.sh REV [ROUNDS]     # default 20 rounds
#   BASE_BIN=path scripts/bench-compare.sh    # a base binary already built
#
# Cases: the 10 MB generated tree (seed 7) linted through its main file and as a directory;
# the same tree with a finding in every vhost; the whole ../shared/corpus; one site file of a
# large corpus stack (the pre-commit case: the Engintron example); `--version` (start-up).
# Numbers, not tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rev=${1:-}
rounds=${2:-20}
cargo build --release --quiet
head_bin=$(mktemp -d)/lemplint-head
cp target/release/lemplint "$head_bin"
if [ -n "${BASE_BIN:-}" ]; then
  base_bin=$BASE_BIN
else
  [ -n "$rev" ] || { echo "usage: scripts/bench-compare.sh REV [ROUNDS]" >&2; exit 2; }
  wt=target/bench-compare-src
  rm -rf "$wt"
  git worktree prune
  git worktree add --detach --quiet "$wt" "$rev"
  CARGO_TARGET_DIR=$PWD/target/bench-compare-target cargo build --release --quiet --manifest-path "$wt/Cargo.toml"
  base_bin=$(dirname "$head_bin")/lemplint-base
  cp target/bench-compare-target/release/lemplint "$base_bin"
  git worktree remove --force "$wt"
fi
tree=target/bench-seed7-9000
[ -f "$tree/nginx.conf" ] || python3 ../shared/tools/gen_nginx_corpus.py "$tree" -n 9000 --seed 7 >/dev/null
noisy=$tree-findings
if [ ! -d "$noisy" ]; then
  cp -r "$tree" "$noisy"
  find "$noisy/sites-enabled" -name '*.conf' -exec sed -i 's/^    listen 80;$/    listen 80;\n    server_tokens on;/' {} +
fi
engintron=../shared/corpus/nginx/TEST-NGXUBB-REPO/_sample_config_files/Engintron_for_CPanel_WHM_Configuration_Example
host=(--isolated --cpus 2 --memory 4GiB)

# case name, then the arguments after the binary
cases=(
  "10MB-file|lint ${host[*]} --format json $tree/nginx.conf"
  "10MB-dir|lint ${host[*]} --format json $tree"
  "10MB-findings|lint ${host[*]} --format json $noisy"
  "corpus|lint ${host[*]} --format concise ../shared/corpus"
  "pre-commit-large|lint ${host[*]} --format concise $engintron/etc/nginx/conf.d/default.conf"
  "version|--version"
)

wall() { # binary args... -> seconds
  local s e
  s=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || true
  e=$EPOCHREALTIME
  awk -v a="$s" -v b="$e" 'BEGIN { printf "%.6f\n", b - a }'
}
stats() { # seconds on stdin -> "median min"
  sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f\n", m, v[1] }'
}
rss() { # binary args... -> peak KB
  local t
  t=$(mktemp)
  /usr/bin/time -o "$t" -f "%M" "$@" >/dev/null 2>&1 || true
  tail -1 "$t"
  rm -f "$t"
}

printf '%-18s %22s %22s %14s %14s %9s\n' case "base median (min) s" "HEAD median (min) s" "ratio median" "ratio min" "RSS MiB"
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a args <<<"${c#*|}"
  b=() h=()
  for _ in $(seq "$rounds"); do
    b+=("$(wall "$base_bin" "${args[@]}")")
    h+=("$(wall "$head_bin" "${args[@]}")")
  done
  read -r bm bmin < <(printf '%s\n' "${b[@]}" | stats)
  read -r hm hmin < <(printf '%s\n' "${h[@]}" | stats)
  br=$(rss "$base_bin" "${args[@]}")
  hr=$(rss "$head_bin" "${args[@]}")
  awk -v n="$name" -v bm="$bm" -v bmin="$bmin" -v hm="$hm" -v hmin="$hmin" -v br="$br" -v hr="$hr" 'BEGIN {
    printf "%-18s %12.4f (%7.4f) %12.4f (%7.4f) %14.2f %14.2f %4.0f/%4.0f\n", n, bm, bmin, hm, hmin, hm / bm, hmin / bmin, br / 1024, hr / 1024 }'
done
