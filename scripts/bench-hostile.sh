#!/usr/bin/env bash
# The input shapes that once made lemplint quadratic or blew up its memory, each generated at
# a base size and at 10x, linted, and timed: the last column is time(10x) / time(1x), which
# stays near 10 for a linear cost. Times are CPU seconds (user + system), the median of five
# runs: on a shared machine wall time measures the neighbours as much as lemplint, and with
# three runs one slow run of either size moved the ratio by 2 or more. The last column is the
# same ratio of user time alone: system time (page faults of a heap ten times larger) is the
# noisiest part on a shared machine. Each shape's base size is chosen so that its 1x run
# takes at least 0.3 s of CPU (measured on the 2-core VM, December 2026): with 1x runs of
# 0.05-0.15 s, start-up (about 10 ms) and scheduling noise decided the ratio (the same binary
# gave 14.8 one day and 7.6 the next). The sizes follow that rule alone, not the ratios.
#
#   scripts/bench-hostile.sh          # base sizes
#   scripts/bench-hostile.sh 2        # twice the base sizes
#   SHAPES="gzip-lines pools" scripts/bench-hostile.sh   # only these shapes
#   BIN=/tmp/lemplint scripts/bench-hostile.sh            # that binary, not a fresh build
#   COUNT=instructions scripts/bench-hostile.sh           # instructions, not seconds
#
# COUNT=instructions counts the instructions each run executes (valgrind's callgrind, one
# thread, one run per size, 1x and 10x side by side on two cores; about 25 minutes): the same
# count whatever the machine is doing. It tells an algorithm's growth apart from the memory
# hierarchy's: on a 10x heap of a gigabyte or more, cache and TLB misses (and, on a VM just
# booted, the host backing fresh pages) put the time ratio at 12-14 where the instruction
# ratio is 10.3 (ngx008-pairs, December 2026).
#
# Shapes: regex locations beside PHP locations (NGX008 judged every pair), pathological
# regexes, duplicates on one line (NGX023's fix scanned the line per duplicate), many pools
# (pool lookups by name were linear), many sysctl lines (SYS003 scanned its key table per
# line), unknown sysctl keys (suggestions), lines of `gzip on;` (a finding each), and from
# issue #36: map keys sharing a prefix (the name table's hash ignored the high bytes of each
# word), servers without `root` (NGX102 scanned `http` per server), the `full` report of a
# large file with a thousand findings (each frame scanned the file), distinct
# nested-quantifier regexes (NGX137 confirmed every candidate), unknown sysctl keys in many
# files (suggestions stop at a file's 1,000 findings, so one file would measure that cap
# rather than the suggestion's cost), and an include fan-out (ten files a level over eight
# levels: stopped by the expansion budget); and template placeholders alone in many blocks
# (the template layer's regions). Numbers, not tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mult=${1:-1}
# BIN=path measures that binary (a copy: a rebuild during the run would change it midway).
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  cargo build --release --quiet
  bin=${CARGO_TARGET_DIR:-$PWD/target}/release/lemplint
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$mult" <<'EOF'
import os, sys
work, mult = sys.argv[1], int(sys.argv[2])
def w(p, s):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(s)
# lemplint reads no file past 64 MiB (an input error), so a shape whose 1x run needs more
# than 6 MB to take 0.3 s is spread over a few files included from `http`: the same files
# at both scales, each ten times larger at 10x, so the cost inside one file (a line, a map,
# a name table) still grows tenfold.
def parts(d, files, body, head=""):
    w(f'{d}/nginx.conf', "events {}\nhttp {\n" + head + "include parts/*.conf;\n}\n")
    for f in range(files):
        w(f'{d}/parts/{f}.conf', body(f))
for scale in (1, 10):
    k = scale * mult
    d = f'{work}/{scale}'
    w(f'{d}/ngx008-pairs/nginx.conf', "events {}\nhttp { server {\n" + "".join(
        f"location ~ ^/static{i}/ {{ }}\nlocation ~ [^/]\\.php(/|$) {{ fastcgi_pass unix:/run/php.sock; }}\n"
        for i in range(48000 * k)) + "} }\n")
    w(f'{d}/ngx008-redos/nginx.conf', "events {}\nhttp { server {\n" + "".join(
        f"location ~ ^/(.*)*z{i}$ {{ }}\nlocation ~ \\.php$ {{ fastcgi_pass 127.0.0.1:9000; }}\n"
        for i in range(45 * k)) + "} }\n")
    parts(f'{d}/ngx023-one-line', 4, lambda f: "sendfile on; " * (400000 * k) + "\n")
    w(f'{d}/pools/etc/php/8.2/fpm/pool.d/www.conf', "".join(
        f"[p{i}]\nuser = www-data\nlisten = /run/php/p{i}.sock\npm = static\npm.max_children = 2\n"
        for i in range(30000 * k)))
    for f in range(2):
        w(f'{d}/sysctl-lines/etc/sysctl.d/9{f}.conf', "".join(
            f"net.core.somaxconn = {i}\n" for i in range(200000 * k)))
    for f in range(6 * k):
        w(f'{d}/sysctl-unknown/etc/sysctl.d/{f:03}.conf', "".join(
            f"net.core.unknown_key_{f}_{i} = {i}\n" for i in range(100)))
    parts(f'{d}/gzip-lines', 3, lambda f: "gzip on;\n" * (630000 * k))
    parts(f'{d}/map-prefix', 8, lambda f: f"map $uri $x{f} {{\n" + "".join(
        f"/prefix/{f}{i:08} 1;\n" for i in range(250000 * k)) + "}\n")
    parts(f'{d}/no-root', 3, lambda f: "".join(
        f"server {{ listen {10000 + i % 50000}; server_name s{f}-{i}.example; location / {{ }} }}\n"
        for i in range(70000 * k)), "server_tokens off;\n")
    parts(f'{d}/full-report', 2, lambda f: "gzip on;\n" * (560000 * k))
    w(f'{d}/ngx137-distinct/nginx.conf', "events {}\nhttp { server { listen 80;\n" + "".join(
        "location ~ ^/" + "".join(f"(({'abcdefghij'[(i + j) % 10]}+)+x{j})?" for j in range(8))
        + f"(z{i}+)+$ {{ }}\n" for i in range(60 * k)) + "} }\n")
    # Fan-out: the same tree at both scales, files ten times larger at 10x.
    body = "".join(f"add_header X-H{i} v;\n" for i in range(4000 * k))
    w(f'{d}/fan-out/nginx.conf', "events {}\nhttp { server { listen 80; location / { include l1/*.conf; } } }\n")
    for level in range(1, 9):
        for i in range(10):
            nxt = f"include l{level + 1}/*.conf;\n" if level < 8 else ""
            w(f'{d}/fan-out/l{level}/f{i}.conf', body + nxt)
    # Template placeholders standing alone in many blocks (each makes its block's
    # statements depend on the template: found in one pass, not one per placeholder).
    parts(f'{d}/template-inserts', 2, lambda f: "".join(
        f"server {{\n    {{{{ extra_{f}_{i} }}}}\n    listen 80;\n    server_name s{f}-{i};\n}}\n"
        for i in range(80000 * k)))
EOF

measure() { # dir [format] -> "cpu_seconds rss_kb user_seconds": medians of five runs, the largest RSS
  local t runs=()
  t=$(mktemp)
  for _ in 1 2 3 4 5; do
    /usr/bin/time -o "$t" -f "%U %S %M" "$bin" lint --isolated --cpus 2 --memory 4GiB --format "${2:-concise}" "$1" >/dev/null 2>&1 || true
    runs+=("$(tail -1 "$t" | awk '{ print $1 + $2, $3, $1 }')")
  done
  rm -f "$t"
  printf '%s\n' "${runs[@]}" | sort -n | awk '{ s[NR] = $1; if ($2 > m) m = $2 } END { print s[3], m }' | tr '\n' ' '
  printf '%s\n' "${runs[@]}" | awk '{ print $3 }' | sort -n | sed -n 3p
}

# One callgrind run: "instructions" of `lint` on the directory, one thread.
count() { # dir [format] -> instructions
  local out
  out=$(mktemp)
  RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$bin" lint --isolated --cpus 2 --memory 4GiB --format "${2:-concise}" "$1" >/dev/null 2>"$out" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out"
  rm -f "$out"
}

all="ngx008-pairs ngx008-redos ngx023-one-line pools sysctl-lines sysctl-unknown gzip-lines
  map-prefix no-root full-report ngx137-distinct fan-out template-inserts"
if [ "${COUNT:-}" = instructions ]; then
  printf '%-16s %16s %16s %8s\n' shape "1x instructions" "10x instructions" ratio
  for shape in ${SHAPES:-$all}; do
    format=concise
    [ "$shape" = full-report ] && format=full
    count "$work/1/$shape" "$format" >"$work/i1" &
    count "$work/10/$shape" "$format" >"$work/i10"
    wait
    awk -v n="$shape" -v a="$(cat "$work/i1")" -v b="$(cat "$work/i10")" 'BEGIN {
      printf "%-16s %16.0f %16.0f %8.2f\n", n, a, b, (a > 0 ? b/a : 0) }'
  done
  exit 0
fi

printf '%-16s %10s %10s %12s %12s %8s %8s\n' shape "1x MB" "10x MB" "1x cpu s (RSS)" "10x cpu s (RSS)" ratio "user"
for shape in ${SHAPES:-$all}; do
  format=concise
  [ "$shape" = full-report ] && format=full
  read -r s1 r1 u1 < <(measure "$work/1/$shape" "$format")
  read -r s10 r10 u10 < <(measure "$work/10/$shape" "$format")
  b1=$(du -sb "$work/1/$shape" | cut -f1)
  b10=$(du -sb "$work/10/$shape" | cut -f1)
  awk -v n="$shape" -v b1="$b1" -v b10="$b10" -v s1="$s1" -v s10="$s10" -v r1="$r1" -v r10="$r10" -v u1="$u1" -v u10="$u10" 'BEGIN {
    printf "%-16s %10.2f %10.2f %6.2f (%3.0fM) %6.2f (%4.0fM) %8.1f %8.1f\n", n, b1/1e6, b10/1e6, s1, r1/1024, s10, r10/1024, (s1 > 0 ? s10/s1 : 0), (u1 > 0 ? u10/u1 : 0) }'
done
