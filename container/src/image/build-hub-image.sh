#!/usr/bin/env bash
# Builds the hub's container image without a registry and without a Docker engine:
#   build-hub-image.sh RELEASE_ARCHIVE OUTPUT_DIR IMAGE_NAME
# writes OUTPUT_DIR/traverse-hub-image.tar, an image in the format `docker load -i` reads
# (manifest.json, the image config, one layer). The layer is a root filesystem made here:
#   /opt/java       a jlink runtime of the JDK that runs this script, with the modules jdeps finds
#                   in the release archive's jars (plus jdk.crypto.ec, for SSH tunnels' ECDH),
#                   without java.desktop's native libraries
#   /opt/traverse   the release archive (bin/, lib/, config/, docs/)
#   /lib*, /usr/lib the shared libraries the runtime and Netty's epoll library link to, copied from
#                   this host as ldd resolves them (glibc, libstdc++, libgcc_s, libz, ...)
#   /etc            passwd and group with the user 'traverse' (10001), nsswitch.conf
#   /var/lib/traverse  the hub's state (its id), owned by that user; /tmp for Netty's native library
# There is no shell in the image: the entrypoint runs java directly.
# Same inputs, same bytes: files are sorted, owned by numeric ids and dated at the epoch, so the
# image id only changes when the contents do.
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 RELEASE_ARCHIVE OUTPUT_DIR IMAGE_NAME" >&2
    exit 2
fi
# The image config says amd64 and the release archive carries Netty's x86_64 epoll library only.
if [ "$(uname -m)" != x86_64 ]; then
    echo "build-hub-image: builds amd64 images only, from an x86_64 host's JDK and libraries (this host is $(uname -m))" >&2
    exit 1
fi
archive=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
image=$3
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
for tool in jlink jdeps jar; do
    [ -x "$java_home/bin/$tool" ] || { echo "build-hub-image: $java_home/bin/$tool missing: a full JDK (jmods) is needed" >&2; exit 1; }
done
[ -d "$java_home/jmods" ] || { echo "build-hub-image: $java_home/jmods missing: jlink needs the JDK's jmods" >&2; exit 1; }

work=$out/image-work
root=$work/rootfs
rm -rf "$work"
mkdir -p "$root/opt" "$root/etc" "$root/tmp" "$root/var/lib/traverse" "$work/native"

tar -xzf "$archive" -C "$root/opt"
mv "$root/opt"/traverse-* "$root/opt/traverse"
lib=$root/opt/traverse/lib

modules=$("$java_home/bin/jdeps" -q --multi-release 17 --ignore-missing-deps --print-module-deps "$lib"/*.jar)
modules="$modules,jdk.crypto.ec"
# java.desktop is there for java.beans (Jackson); its native libraries (AWT, sound, fonts) are not, so
# they and the X11 libraries they link to stay out.
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
    --exclude-files='/java.desktop/lib/**' --output "$root/opt/java"

# Netty's epoll library is unpacked from its jar at run time: its libraries must be there too.
epoll_jar=$(ls "$lib"/netty-transport-native-epoll-*-linux-x86_64.jar)
(cd "$work/native" && "$java_home/bin/jar" xf "$epoll_jar" META-INF/native)

# Every shared library ldd resolves outside the runtime, at the path the loader looks for it.
shared_objects=$(find "$root/opt/java" "$work/native" -name '*.so' -type f; echo "$root/opt/java/bin/java")
needed=$(for so in $shared_objects; do ldd "$so" 2>/dev/null || true; done \
    | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | grep -v "^$root" | sort -u)
missing=$(for so in $shared_objects; do ldd "$so" 2>/dev/null | grep 'not found' | sed "s|^|$(basename "$so"): |" || true; done \
    | grep -v -e libjvm.so || true)
if [ -n "$missing" ]; then
    echo "build-hub-image: shared libraries not found on this host:" >&2
    echo "$missing" >&2
    exit 1
fi
for so in $needed; do
    mkdir -p "$root$(dirname "$so")"
    cp -L "$so" "$root$so"
done
# glibc loads libgcc_s at run time (thread cancellation, unwinding) without a link to it.
gcc_s=$(ldconfig -p | awk '/libgcc_s.so.1 .*x86-64/ && !found { print $NF; found = 1 }')  # awk reads to the end: no SIGPIPE under pipefail
if [ -n "$gcc_s" ] && [ ! -e "$root$gcc_s" ]; then
    mkdir -p "$root$(dirname "$gcc_s")"
    cp -L "$gcc_s" "$root$gcc_s"
fi

cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
traverse:x:10001:10001:traverse hub:/var/lib/traverse:/usr/sbin/nologin
EOF
cat > "$root/etc/group" <<'EOF'
root:x:0:
traverse:x:10001:
EOF
echo 'hosts: files dns' > "$root/etc/nsswitch.conf"
chmod 1777 "$root/tmp"
chmod 0700 "$root/var/lib/traverse"

layer=$work/layer.tar
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --exclude=./var/lib/traverse -C "$root" -cf "$layer" .
# the state directory belongs to the hub's user: --owner applies to a whole run, so it is appended
# by a second one
tar --mtime=@0 --owner=10001 --group=10001 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --no-recursion \
    -C "$root" -rf "$layer" ./var/lib/traverse
layer_sha=$(sha256sum "$layer" | cut -d' ' -f1)

# The image config (Docker image spec v1.2): what `docker run` starts, as which user, which ports.
config=$work/config.json
cat > "$config" <<EOF
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
"config":{"User":"10001:10001",
"Env":["PATH=/opt/java/bin:/usr/bin:/bin","JAVA_HOME=/opt/java","XDG_STATE_HOME=/var/lib"],
"Entrypoint":["/opt/java/bin/java","-XX:+ExitOnOutOfMemoryError","--enable-native-access=ALL-UNNAMED","-cp","/opt/traverse/lib/*","io.traverse.cli.TraverseCommand"],
"Cmd":["hub"],
"ExposedPorts":{"17000/tcp":{},"17000/udp":{},"17080/tcp":{}},
"WorkingDir":"/var/lib/traverse",
"Labels":{"org.opencontainers.image.title":"traverse hub","org.opencontainers.image.source":"traverse release archive $(basename "$archive")"}},
"rootfs":{"type":"layers","diff_ids":["sha256:$layer_sha"]},
"history":[{"created":"1970-01-01T00:00:00Z","created_by":"container/src/image/build-hub-image.sh"}]}
EOF
config_sha=$(sha256sum "$config" | cut -d' ' -f1)

bundle=$work/bundle
mkdir -p "$bundle/$layer_sha"
mv "$layer" "$bundle/$layer_sha/layer.tar"
mv "$config" "$bundle/$config_sha.json"
printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]\n' "$config_sha" "$image" "$layer_sha" \
    > "$bundle/manifest.json"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$bundle" -cf "$out/traverse-hub-image.tar" .
rm -rf "$work"
echo "build-hub-image: $out/traverse-hub-image.tar ($image, $(du -m "$out/traverse-hub-image.tar" | cut -f1) MB, image id sha256:$config_sha;" \
    "runtime modules $modules)"
