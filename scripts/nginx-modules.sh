#!/usr/bin/env bash
# Puts the dynamic nginx modules the differential tests load (Debian's ndk, lua and echo
# modules) into target/nginx-modules/, and the Lua libraries the lua module needs
# (resty.core, resty.lrucache) into target/nginx-modules/lua/. The tests load them from
# there with `load_module` and LUA_PATH.
#
# The packages are fetched with `apt-get download` and unpacked with `dpkg-deb -x`, never
# installed: installing libnginx-mod-http-lua (or lua-resty-core, which depends on it) drops
# a symlink in the machine's own /etc/nginx/modules-enabled/, which would enable the module
# in the system's nginx. Only libluajit2 (OpenResty's LuaJIT, which the lua module links to) is
# installed when it is missing. Idempotent; runs from any cwd.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=target/nginx-modules
modules=(ndk_http_module.so ngx_http_lua_module.so ngx_http_echo_module.so)
packages=(libnginx-mod-http-ndk libnginx-mod-http-lua libnginx-mod-http-echo lua-resty-core lua-resty-lrucache)

have_all() {
    for m in "${modules[@]}"; do
        [ -f "$out/$m" ] || return 1
    done
    [ -f "$out/lua/resty/core.lua" ]
}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# Debian's lua module calls OpenResty's LuaJIT extensions (`lua_setexdata`): it needs
# libluajit2-5.1-2, not the plain libluajit-5.1-2 that provides the same soname. The status is
# read into a variable first: `dpkg-query | grep -q` under pipefail fails at random when grep
# exits before dpkg-query has written everything (SIGPIPE), and a wrong "missing" here once
# replaced the machine's libluajit2 (and with it its own lua module package).
# It also links libpcre.so.3 (libpcre3), which a machine whose nginx uses PCRE2 may lack.
needed=()
for pkg in libluajit2-5.1-2 libpcre3; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || needed+=("$pkg")
done
if [ ${#needed[@]} -gt 0 ]; then
    echo "scripts/nginx-modules.sh: installing ${needed[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${needed[@]}" >/dev/null
fi

if have_all; then
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(
    cd "$work"
    if ! apt-get download "${packages[@]}" >/dev/null 2>&1; then
        $sudo apt-get update -qq
        apt-get download "${packages[@]}" >/dev/null
    fi
    for deb in ./*.deb; do
        dpkg-deb -x "$deb" root
    done
)
rm -rf "$out"
mkdir -p "$out/lua"
for m in "${modules[@]}"; do
    cp "$work/root/usr/lib/nginx/modules/$m" "$out/$m"
done
cp -r "$work/root/usr/share/lua/5.1/." "$out/lua/"
have_all
echo "scripts/nginx-modules.sh: ${modules[*]} and resty.core in $out (not installed)" >&2
