#!/usr/bin/env bash
# `cpack -G DEB` on the build tree gives a .deb whose Depends names the
# packages of the libraries phc-ninja links, and whose files, extracted into a
# scratch root (never installed into the system), run: --version, phc-launch,
# explain.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
: "${PHC_BUILD:?PHC_BUILD must name the build tree}"
dir=$(suite_dir package_deb)
host_launch=$([ -e /usr/bin/phc-launch ] && echo yes || echo no)

# cpack's install step rewrites the build tree's install_manifest.txt: put it back.
manifest=$PHC_BUILD/install_manifest.txt
if [ -e "$manifest" ]; then cp -p "$manifest" "$dir/install_manifest.txt"; fi
cpack --config "$PHC_BUILD/CPackConfig.cmake" -G DEB -B "$dir/pkg" >"$dir/cpack.log" 2>&1 \
  || fail "cpack failed: $(cat "$dir/cpack.log")"
if [ -e "$dir/install_manifest.txt" ]; then mv "$dir/install_manifest.txt" "$manifest"; else rm -f "$manifest"; fi
debs=("$dir"/pkg/*.deb)
if [ "${#debs[@]}" != 1 ] || [ ! -f "${debs[0]}" ]; then fail "expected one .deb, got: ${debs[*]}"; fi
deb=${debs[0]}
[ "$host_launch" = yes ] || [ ! -e /usr/bin/phc-launch ] || fail "cpack wrote /usr/bin/phc-launch on the host"

version=$("$PHC" --version | sed -n 's/^phc-ninja \([0-9.]*\).*/\1/p')
expect_eq "Package" phc-ninja "$(dpkg-deb -f "$deb" Package)"
expect_eq "Version" "$version" "$(dpkg-deb -f "$deb" Version)"
expect_eq "Section" devel "$(dpkg-deb -f "$deb" Section)"
expect_eq "file name" "phc-ninja_${version}_$(dpkg --print-architecture).deb" "${deb##*/}"

# The packages owning the libraries the binary needs (NEEDED, found by ldd).
# dpkg knows a library by the path it shipped it under: /lib or /usr/lib.
owner() {
  dpkg -S "$1" 2>/dev/null || dpkg -S "$(realpath "$1")" 2>/dev/null || dpkg -S "${1#/usr}" 2>/dev/null \
    || fail "no package owns $1"
}
needed=$(readelf -d "$PHC" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf found no NEEDED libraries in $PHC"
libs=$(ldd "$PHC")
wanted=$(for so in $needed; do
  # "libc.so.6 => /lib/.../libc.so.6 (...)", or the loader by its path: "/lib64/ld-linux-x86-64.so.2 (...)"
  path=$(awk -v so="$so" '$1 == so && $2 == "=>" { print $3 }
    $1 ~ /^\// { n = split($1, p, "/"); if (p[n] == so) print $1 }' <<<"$libs")
  [ -n "$path" ] || fail "ldd does not find $so"
  owner "$path" | sed 's/:.*//'
done | sort -u)
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*)//; s/ //g' | sort -u)
expect_eq "Depends (packages of ${needed//$'\n'/ })" "$wanted" "$depends"

# The files: the binary, phc-launch as a link to it, the README and licence.
dpkg-deb -c "$deb" >"$dir/contents"
grep -q ' \./usr/bin/phc-ninja$' "$dir/contents" || fail "no usr/bin/phc-ninja: $(cat "$dir/contents")"
grep -q ' \./usr/bin/phc-launch -> phc-ninja$' "$dir/contents" \
  || fail "no usr/bin/phc-launch link: $(cat "$dir/contents")"
for f in README.md LICENSE; do
  grep -q " \./usr/share/doc/phc-ninja/$f$" "$dir/contents" || fail "no usr/share/doc/phc-ninja/$f"
done
if grep -v ' \./usr/' "$dir/contents" | grep -v ' \./$'; then fail "files outside usr/"; fi

root=$dir/root
dpkg-deb -x "$deb" "$root"
bin=$root/usr/bin
readelf -S "$bin/phc-ninja" >"$dir/sections"
if grep -qF .debug_info "$dir/sections"; then fail "usr/bin/phc-ninja is not stripped"; fi
expect_eq "--version" "$("$PHC" --version)" "$("$bin/phc-ninja" --version)"
out=$("$bin/phc-launch" sh -c 'echo hi; exit 3') && fail "phc-launch lost the exit status" || rc=$?
expect_eq "phc-launch exit status" 3 "$rc"
expect_eq "phc-launch output" hi "$out"

cd "$dir" || fail "cd $dir"
printf '__global__ void k(float *x) { x[0] = 1; }\n' >k.hip
"$bin/phc-ninja" explain -- clang++-15 -x hip --offload-arch=gfx906 --offload-arch=gfx90a \
  -c k.hip -o k.o >explain.out 2>&1 || fail "explain failed: $(cat explain.out)"
grep -qx '# decision: split' explain.out || fail "explain does not split: $(cat explain.out)"
expect_eq "device compiles" 2 "$(grep -c -e '--offload-device-only' explain.out)"
pass "the .deb's metadata, files, phc-ninja, phc-launch and explain"
