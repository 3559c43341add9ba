#!/usr/bin/env bash
# Fuzz lemplint with cargo-fuzz (libFuzzer): the three parsers, the cipher-string evaluator,
# and lint + fix of one standard-input file. Targets and their checks: fuzz/fuzz_targets/,
# fuzz/checks.rs (shared with tests/properties.rs).
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#
# Not part of CI (CI runs only the property tests, through `cargo test`). Fuzzing is
# long-running: the script runs at low priority (nice 10), one target after the other.
#
# How it runs on a stable toolchain: libFuzzer's instrumentation needs rustc's unstable
# `-Z` flags (`-Zsanitizer…`, `-Cpasses=sancov-module` options). cargo-fuzz passes them, and
# RUSTC_BOOTSTRAP=1 makes the stable rustc accept them, so no nightly toolchain is needed.
# The sanitizer is `none` by default: lemplint has no `unsafe` code, and AddressSanitizer
# would halve the executions per second for nothing. FUZZ_SANITIZER=address (the stable
# toolchain ships the ASan runtime) turns it on.
#
# Each target runs in libFuzzer's fork mode with crashes, timeouts and OOMs ignored, so one
# finding does not end the run; every finding is saved in fuzz/artifacts/<target>/
# (crash-*, timeout-*, oom-*). Minimize one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz tmin -s none <target> fuzz/artifacts/<target>/crash-…
# and keep it as tests/regressions/<target>-<short-hash>.bin (tests/properties.rs runs it).
#
# Seeds: copied at run time from ../shared/corpus (never committed; fuzz/corpus is in
# .gitignore), plus tests/regressions/ and a few built-in cipher strings.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

secs=${1:-60}
shift || true
all=(fuzz_nginx_parse fuzz_fpm_parse fuzz_sysctl_parse fuzz_cipher_string fuzz_lint_fix_stdin)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi
sanitizer=${FUZZ_SANITIZER:-none}
shared=${LEMPLINT_CORPUS:-$root/../shared/corpus}
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked
fi

# --- seed corpora ------------------------------------------------------------------------
seed() { # seed TARGET FILE...: copy files (at most 64 KiB) named by content hash
  local dir="$root/fuzz/corpus/$1" f h
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] || continue
    h=$(sha1sum "$f" | cut -c1-16)
    [ -e "$dir/seed-$h" ] || cp "$f" "$dir/seed-$h"
  done
}
files_of() { find "$shared/$1" -type f ! -name LICENSE -print0 | sort -z; }

if [ -d "$shared" ]; then
  mapfile -d '' -t nginx_files < <(files_of nginx)
  mapfile -d '' -t fpm_files < <(files_of php-fpm)
  mapfile -d '' -t sysctl_files < <(files_of sysctl)
else
  echo "fuzz.sh: no corpus at $shared; starting from the regression files only" >&2
  nginx_files=() fpm_files=() sysctl_files=()
fi
for t in "${targets[@]}"; do
  mkdir -p "$root/fuzz/corpus/$t" "$root/fuzz/artifacts/$t"
  case $t in
    fuzz_nginx_parse) seed "$t" "${nginx_files[@]}" ;;
    fuzz_fpm_parse) seed "$t" "${fpm_files[@]}" ;;
    fuzz_sysctl_parse) seed "$t" "${sysctl_files[@]}" ;;
    fuzz_lint_fix_stdin)
      # Every fpm and sysctl file, and a sample of the nginx ones (fixing is slow).
      some=()
      for i in "${!nginx_files[@]}"; do
        if [ $((i % 4)) -eq 0 ]; then some+=("${nginx_files[$i]}"); fi
      done
      seed "$t" "${fpm_files[@]}" "${sysctl_files[@]}" "${some[@]}" ;;
    fuzz_cipher_string)
      tmp=$(mktemp -d)
      i=0
      # The ssl_ciphers arguments of the nginx corpus, and the keywords' corner cases.
      {
        if [ ${#nginx_files[@]} -gt 0 ]; then
          grep -rhoaE 'ssl_ciphers[[:space:]]+[^;]+' "${nginx_files[@]}" 2>/dev/null |
            sed -E 's/^ssl_ciphers[[:space:]]+//; s/^["'\'']//; s/["'\'']$//' || true
        fi
        printf '%s\n' 'DEFAULT' 'ALL:!aNULL:!eNULL' 'HIGH:!aNULL:!MD5' 'DEFAULT:@SECLEVEL=0' \
          'SUITEB128' 'SUITEB192:ALL' 'ECDHE+AESGCM:ECDHE+CHACHA20:!SHA1' 'kEECDH+AESGCM+AES128' \
          'ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP' 'COMPLEMENTOFDEFAULT:@STRENGTH' \
          '-ALL:+aRSA:-3DES' 'RSA+AES256+SHA256 , !CBC;TLSv1.2' 'EXPORT40:LOW:eNULL:@STRENGTH:DHE'
      } | sort -u | while IFS= read -r line; do
        printf '%s' "$line" >"$tmp/c$i"
        i=$((i + 1))
      done
      seed "$t" "$tmp"/c*
      rm -rf "$tmp" ;;
    *) echo "fuzz.sh: unknown target $t (targets: ${all[*]})" >&2; exit 2 ;;
  esac
  seed "$t" "$root"/tests/regressions/"$t"-*.bin
done

# --- build once, then run each target ----------------------------------------------------
cd "$root/fuzz"
for t in "${targets[@]}"; do nice -n 10 cargo fuzz build -s "$sanitizer" "$t"; done

summary=()
for t in "${targets[@]}"; do
  log="$root/fuzz/artifacts/$t/last-run.log"
  findings() { find "$root/fuzz/artifacts/$t" -type f ! -name '*.log' | sort; }
  before=$(findings)
  seeds=$(find "$root/fuzz/corpus/$t" -type f | wc -l)
  echo "== $t: ${secs}s from $seeds inputs" >&2
  # -fork=1 with -ignore_*: a finding is saved and the run goes on. -timeout: an input that
  # takes longer is a hang (saved as timeout-*). -max_len: 64 KiB, as large as the seeds.
  set +e
  nice -n 10 cargo fuzz run -s "$sanitizer" "$t" -- \
    -max_total_time="$secs" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -timeout=20 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    >"$log" 2>&1
  rc=$?
  set -e
  # Fork mode prints `#<execs>: cov: … crash: n …` lines; take the last.
  execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  took=$(grep -oE 'fuzzed for [0-9]+ seconds' "$log" | tail -1 | grep -oE '[0-9]+')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  fresh=$(comm -13 <(printf '%s\n' "$before") <(findings) | sed '/^$/d')
  new=$(printf '%s' "$fresh" | grep -c . || true)
  line="$t: ${execs:-?} executions in ${took:-$secs}s, coverage ${cov:-?}, $new new finding(s) (exit $rc)"
  summary+=("$line")
  echo "$line" >&2
  if [ "$new" -gt 0 ]; then
    printf '   %s\n' $fresh >&2
    grep -m3 -E "panicked at|ERROR: libFuzzer" "$log" | sed 's/^/   /' >&2 || true
  fi
done

echo
echo "Summary (logs in fuzz/artifacts/<target>/last-run.log):"
printf '  %s\n' "${summary[@]}"
