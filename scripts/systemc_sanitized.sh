#!/usr/bin/env bash
# Builds SystemC from Debian's own source package (the version libsystemc-dev installs) with
# AddressSanitizer and UndefinedBehaviorSanitizer, for the `debug` preset. Usage:
#   scripts/systemc_sanitized.sh LINK
# The library is built once per key (the source version, the flags, the compiler and this script) into the
# cache folder outside the clone ($QACC_CACHE_DIR, else $XDG_CACHE_HOME/qacc, else ~/.cache/qacc; the same as
# cmake/qacc_ccache.cmake's) as systemc-sanitized/<key hash>, and LINK (the preset's build/systemc-sanitized) is
# made a symbolic link to it. A folder is used only when its .stamp names the whole key, which is written
# last: a build that was interrupted, or one for another key, is never used. docs/sanitizers.md "Caches".
#
# Why (docs/sanitizers.md): Debian's libsystemc runs SC_THREADs on QuickThreads coroutines. Its
# switches tell ASan the new stack only in yield(): a process that ends (abort()) and every switch
# back to the main coroutine (stack bounds 0) leave ASan with the wrong stack, so an exception
# thrown afterwards skips the unpoisoning of the stack ("ASan is ignoring requested
# __asan_handle_no_return") and LeakSanitizer does not scan the main stack at exit (false leaks).
# With ENABLE_PTHREADS every process is a real thread, whose stack ASan and LSan know.
set -euo pipefail
link=${1:?usage: scripts/systemc_sanitized.sh LINK}
if [ -n "${QACC_CACHE_DIR:-}" ]; then
  cache_root=$QACC_CACHE_DIR
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
  cache_root=$XDG_CACHE_HOME/qacc
else
  cache_root=$HOME/.cache/qacc
fi

version=$(dpkg-query -W -f='${Version}' libsystemc-dev)  # e.g. 2.3.4-2
upstream=${version%-*}
pool=http://deb.debian.org/debian/pool/main/s/systemc
# Less two UBSan checks, in the library only: SystemC ends its run queues in a sentinel pointer
# (SC_NO_METHODS, SC_NO_THREADS: 0xdb) and its kernel casts it down to sc_method_process* and calls
# inline members on it. The vptr check of that cast reads address 0xdb (a SEGV) and the alignment
# check reports it; both are SystemC's idiom, not qacc's. qacc's own code, including the SystemC
# headers it compiles, keeps every check (the debug preset's flags).
flags="-fsanitize=address,undefined -fno-sanitize=alignment,vptr -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
script_hash=$(sha256sum "$0" | cut -c1-16)
stamp="systemc ${version} pthreads c++17 ${flags}; $(c++ --version | head -1); script ${script_hash}"
prefix=$cache_root/systemc-sanitized/$(echo "$stamp" | sha256sum | cut -c1-16)
point_link() {
  mkdir -p "$(dirname "$link")"
  rm -rf "$link"
  ln -s "$prefix" "$link"
}
if [ -f "$prefix/.stamp" ] && [ "$(cat "$prefix/.stamp")" = "$stamp" ]; then
  point_link
  echo "systemc_sanitized: cached in $prefix ($stamp)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# The .dsc lists the checksums of the tarballs; it is the package Debian built libsystemc-dev from.
curl -sSfO "$pool/systemc_${version}.dsc"
orig=systemc_${upstream}.orig.tar.gz
curl -sSfO "$pool/$orig"
want=$(awk -v f="$orig" '/^Checksums-Sha256:/{s=1; next} /^[^ ]/{s=0} s && $3==f {print $1}' \
  "systemc_${version}.dsc")
echo "$want  $orig" | sha256sum -c --quiet
tar xzf "$orig"

rm -rf "$prefix"
cmake -S "systemc-${upstream}" -B build -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_STANDARD=17 -DENABLE_PTHREADS=ON -DBUILD_SHARED_LIBS=ON \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
cmake --build build -j "$(nproc)" --target systemc >/dev/null
cmake --install build >/dev/null
echo "$stamp" >"$prefix/.stamp"
point_link
echo "systemc_sanitized: built $stamp in $prefix"
