#!/usr/bin/env bash
# The input shapes that once made lemplint quadratic or blew up its memory, each generated at
# a base size and at 10x, linted, and timed: the last column is time(10x) / time(1x), which
# stays near 10 for a linear cost (small inputs are dominated by start-up, so the ratio of a
# fast shape reads low).
#
#   scripts/bench-hostile.sh          # base sizes
#   scripts/bench-hostile.sh 2        # twice the base sizes
#
# Shapes: regex locations beside PHP locations (NGX008 judged every pair), pathological
# regexes, 80,000 duplicates on one line (NGX023's fix scanned the line per duplicate),
# 20,000 pools (pool lookups by name were linear), a million sysctl lines (SYS003 scanned its
# key table per line), unknown sysctl keys (suggestions), and 63 MB of `gzip on;` (a finding
# each). Numbers, not tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mult=${1:-1}
cargo build --release --quiet
bin=$PWD/target/release/lemplint
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$mult" <<'EOF'
import os, sys
work, mult = sys.argv[1], int(sys.argv[2])
def w(p, s):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(s)
for scale in (1, 10):
    k = scale * mult
    d = f'{work}/{scale}'
    w(f'{d}/ngx008-pairs/nginx.conf', "events {}\nhttp { server {\n" + "".join(
        f"location ~ ^/static{i}/ {{ }}\nlocation ~ [^/]\\.php(/|$) {{ fastcgi_pass unix:/run/php.sock; }}\n"
        for i in range(200 * k)) + "} }\n")
    w(f'{d}/ngx008-redos/nginx.conf', "events {}\nhttp { server {\n" + "".join(
        f"location ~ ^/(.*)*z{i}$ {{ }}\nlocation ~ \\.php$ {{ fastcgi_pass 127.0.0.1:9000; }}\n"
        for i in range(15 * k)) + "} }\n")
    w(f'{d}/ngx023-one-line/nginx.conf', "events {}\nhttp { " + "sendfile on; " * (8000 * k) + "}\n")
    w(f'{d}/pools/etc/php/8.2/fpm/pool.d/www.conf', "".join(
        f"[p{i}]\nuser = www-data\nlisten = /run/php/p{i}.sock\npm = static\npm.max_children = 2\n"
        for i in range(2000 * k)))
    w(f'{d}/sysctl-lines/etc/sysctl.d/99.conf', "".join(
        f"net.core.somaxconn = {i}\n" for i in range(100000 * k)))
    w(f'{d}/sysctl-unknown/etc/sysctl.d/99.conf', "".join(
        f"net.core.unknown_key_{i} = {i}\n" for i in range(100000 * k)))
    w(f'{d}/gzip-lines/nginx.conf', "events {}\nhttp {\n" + "gzip on;\n" * (630000 * k) + "}\n")
EOF

measure() { # dir -> "seconds rss_kb"
  local t
  t=$(mktemp)
  /usr/bin/time -o "$t" -f "%e %M" "$bin" lint --isolated --cpus 2 --memory 4GiB --format concise "$1" >/dev/null 2>&1 || true
  tail -1 "$t"
  rm -f "$t"
}

printf '%-16s %10s %10s %12s %12s %8s\n' shape "1x MB" "10x MB" "1x s (RSS)" "10x s (RSS)" ratio
for shape in ngx008-pairs ngx008-redos ngx023-one-line pools sysctl-lines sysctl-unknown gzip-lines; do
  read -r s1 r1 < <(measure "$work/1/$shape")
  read -r s10 r10 < <(measure "$work/10/$shape")
  b1=$(du -sb "$work/1/$shape" | cut -f1)
  b10=$(du -sb "$work/10/$shape" | cut -f1)
  awk -v n="$shape" -v b1="$b1" -v b10="$b10" -v s1="$s1" -v s10="$s10" -v r1="$r1" -v r10="$r10" 'BEGIN {
    printf "%-16s %10.2f %10.2f %6.2f (%3.0fM) %6.2f (%4.0fM) %8.1f\n", n, b1/1e6, b10/1e6, s1, r1/1024, s10, r10/1024, (s1 > 0 ? s10/s1 : 0) }'
done
