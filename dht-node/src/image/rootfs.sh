#!/usr/bin/env bash
# Builds the image's root filesystem besides the application (Jib adds the jars): a jlinked JRE in /opt/jre, and the
# shared libraries it and RocksDB's JNI library load, taken from Debian's packages (apt-get download, dpkg-deb), so
# that the image can start FROM scratch. Usage: rootfs.sh OUT_DIR WORK_DIR JAVA_HOME
set -euo pipefail

out="$1"
work="$2"
java_home="$3"
# What jdeps finds the node needs, less java.desktop (only Jackson's optional java.beans support reaches for it).
modules=java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.management,jdk.unsupported
# The C and C++ runtimes (RocksDB is C++), zlib (the JDK's zip support links it): the build host's Debian release's.
packages=(libc6 libgcc-s1 libstdc++6 zlib1g)

for tool in apt-get dpkg-deb; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "rootfs.sh: the image takes its shared libraries from Debian's packages and needs $tool;" \
             "on another system build with -Drattan.image.skip=true" >&2
        exit 1
    fi
done

if [[ "$(dpkg --print-architecture)" != amd64 ]]; then
    echo "rootfs.sh: the image is built for amd64 (x86_64) only, not $(dpkg --print-architecture);" \
         "build with -Drattan.image.skip=true" >&2
    exit 1
fi

# Fetched anew each build, so that the image takes the release's security updates; never a half-written .deb.
rm -rf "$out" "$work/jre" "$work/debs" "$work/unpacked"
mkdir -p "$out/opt" "$work/debs" "$work/unpacked"

# EdDSA and EC keys live in jdk.crypto.ec until JDK 22 folded it into java.base.
if "$java_home/bin/java" --list-modules | grep -q '^jdk.crypto.ec@'; then
    modules="$modules,jdk.crypto.ec"
fi
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --output "$work/jre"
cp -a "$work/jre" "$out/opt/jre"

if ! (cd "$work/debs" && apt-get download -q -o APT::Sandbox::User=root "${packages[@]}" >/dev/null); then
    echo "rootfs.sh: apt-get download ${packages[*]} failed (no package lists? run apt-get update)" >&2
    exit 1
fi
for deb in "$work"/debs/*.deb; do
    dpkg-deb -x "$deb" "$work/unpacked"
done

# Only the libraries and the dynamic loader, with symlinks resolved (Jib copies files, not links); no locales,
# gconv modules, docs or tools.
libdir=lib/x86_64-linux-gnu
mkdir -p "$out/$libdir" "$out/lib64"
for dir in "$work/unpacked/lib/x86_64-linux-gnu" "$work/unpacked/usr/lib/x86_64-linux-gnu"; do
    [[ -d "$dir" ]] || continue
    find "$dir" -maxdepth 1 \( -type f -o -type l \) \( -name '*.so' -o -name '*.so.*' \) -print0 |
        while IFS= read -r -d '' lib; do
            cp -L "$lib" "$out/$libdir/"
        done
done
# The package's /lib64 entry is a link to an absolute path, which would resolve on the build host: take the file,
# from wherever the release puts it (/lib, or /usr/lib after the /usr merge).
loader="$(find "$work/unpacked/lib/x86_64-linux-gnu" "$work/unpacked/usr/lib/x86_64-linux-gnu" -maxdepth 1 -type f \
    -name 'ld-linux-x86-64.so.2' 2>/dev/null | head -n 1)"
if [[ -z "$loader" ]]; then
    echo "rootfs.sh: no ld-linux-x86-64.so.2 in the libc6 package" >&2
    exit 1
fi
cp "$loader" "$out/lib64/"

# The user the node runs as (uid 10001), name resolution that reads /etc/hosts first, and the mount points.
mkdir -p "$out/etc/rattan" "$out/data" "$out/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nrattan:x:10001:10001:rattan:/data:/sbin/nologin\n' >"$out/etc/passwd"
printf 'root:x:0:\nrattan:x:10001:\n' >"$out/etc/group"
printf 'hosts: files dns\n' >"$out/etc/nsswitch.conf"
