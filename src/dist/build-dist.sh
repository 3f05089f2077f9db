#!/bin/sh
# Builds the self-contained distribution under target/dist/ (run by the `dist` Maven profile in the
# package phase, after the shaded jar; docs/install.md says what each artifact is for):
#
#   mcp-stdio-VERSION-linux-x64/              the unpacked tree: bin/mcp-stdio (the launcher),
#                                             lib/ (the jar, the trained start-up caches),
#                                             runtime/ (a Java runtime trimmed by jlink)
#   mcp-stdio-VERSION-linux-x64.tar.gz        that tree as an archive, and its .sha256
#   mcp-stdio_DEBVERSION_amd64.deb            the tree in /usr/lib/mcp-stdio, /usr/bin/mcp-stdio, and its .sha256
#   image-base.tar                            the OCI image's base (the C library the runtime needs,
#                                             a non-root user, the health check), which the
#                                             image build (Jib, the next step of the profile) starts from
#   image-root/opt/mcp-stdio                  the tree again but the launcher, as the image's application layer
#
# Needs a JDK 25 or newer whose jlink can link a runtime (its own linkable image or jmods): the
# start-up cache is JDK 25's ahead-of-time cache. DIST_JDK names one; else the newest under the
# usual folders. No network.
set -eu
# The builder's own JVM and launcher settings must not reach the training runs, the caches' keys
# or the image's JVM options: the artifacts are for everyone.
unset MCP_STDIO_JAVA_OPTS MCP_STDIO_NO_CACHE MCP_STDIO_JAVA_HOME JDK_JAVA_OPTIONS JAVA_TOOL_OPTIONS _JAVA_OPTIONS

BASEDIR=${1:?usage: build-dist.sh BASEDIR VERSION}
VERSION=${2:?usage: build-dist.sh BASEDIR VERSION}
TARGET="$BASEDIR/target"
DIST="$TARGET/dist"
NAME="mcp-stdio-$VERSION-linux-x64"
TREE="$DIST/$NAME"

say() { printf 'dist: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) die "the distribution is built for Linux x64 on Linux x64 only (this is $(uname -s)/$(uname -m)); docs/install.md" ;;
esac

java_major() {
  [ -x "$1/bin/jlink" ] && [ -r "$1/release" ] || return 1
  sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$1/release" | head -n 1
}
find_jdk() {
  if [ -n "${DIST_JDK:-}" ]; then
    m=$(java_major "$DIST_JDK") && [ "$m" -ge 25 ] || die "DIST_JDK=$DIST_JDK is not a JDK 25 or newer with jlink"
    echo "$DIST_JDK"; return
  fi
  best=""; best_major=0
  for home in "${JAVA_HOME:-}" /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk*; do
    [ -n "$home" ] && [ -d "$home" ] || continue
    m=$(java_major "$home") || continue
    [ -n "$m" ] && [ "$m" -ge 25 ] && [ "$m" -gt "$best_major" ] && { best=$home; best_major=$m; }
  done
  [ -n "$best" ] || die "no JDK 25 or newer with jlink found (set DIST_JDK); build without the distribution: mvn -P'!dist' ..."
  echo "$best"
}
JDK=$(find_jdk)
say "linking a runtime from $JDK"

rm -rf "$DIST"
mkdir -p "$TREE/bin" "$TREE/lib"

# The modules: what jdeps finds the jar using, less two that only unused code of the libraries
# names (java.desktop: Jetty's leak preventers for AWT and ImageIO; java.sql: Gson's optional
# java.sql adapters inside Nimbus, which it looks up by reflection and skips when absent; java.sql
# would also pull in java.xml), plus what is reached without a static reference: jdk.jfr,
# jdk.management and jdk.management.jfr (a flight recording started through the diagnostic
# command MBean, cli.FlightRecording), and jdk.crypto.ec where the JDK still has it.
found=$("$JDK/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 25 "$TARGET/mcp-stdio.jar")
modules=$(printf '%s' "$found" | tr ',' '\n' | grep -v -x -e java.desktop -e java.sql | tr '\n' ',')
modules="${modules}jdk.jfr,jdk.management,jdk.management.jfr"
"$JDK/bin/java" --list-modules | grep -q '^jdk.crypto.ec@' && modules="$modules,jdk.crypto.ec"
say "modules: $modules"
# Not compressed: the archive and the package are compressed as a whole, and an uncompressed
# module image starts faster and maps less memory (docs/performance.md).
"$JDK/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --strip-native-debug-symbols=objcopy="$(command -v objcopy || echo /usr/bin/objcopy)" \
  --output "$TREE/runtime" >&2

cp "$TARGET/mcp-stdio.jar" "$TREE/lib/mcp-stdio.jar"
cp "$BASEDIR/mcp-stdio" "$TREE/bin/mcp-stdio"
chmod 755 "$TREE/bin/mcp-stdio"
cp "$BASEDIR/README.md" "$TREE/README.md"
# what tells the launcher it runs from a distribution (with runtime/ and the jar beside it)
printf '%s\n' "$VERSION" > "$TREE/lib/mcp-stdio.dist"

# The start-up caches of the relay and of serve, trained by the tree's own launcher on its own
# runtime with the flags it runs with. The JVM checks the jar's size and modification time, which
# the archive and the package keep; the image's files all get Jib's time, one second past the
# epoch, so the tree has that time from here on.
find "$TREE" -exec touch -h -d @1 {} +
LOG="$TARGET/dist-training.log"
MCP_STDIO_DIST_TRAIN=1 "$TREE/bin/mcp-stdio" --version >/dev/null 2>"$LOG" \
  && MCP_STDIO_DIST_TRAIN=1 "$TREE/bin/mcp-stdio" serve --version >/dev/null 2>>"$LOG" \
  || { tail -n 20 "$LOG" >&2; die "training the start-up caches failed (all of it in $LOG)"; }
[ -f "$TREE/lib/mcp-stdio.aot" ] && [ -f "$TREE/lib/mcp-stdio-serve.aot" ] || die "the start-up caches were not written"

checksum() { (cd "$(dirname "$1")" && sha256sum "$(basename "$1")" > "$(basename "$1").sha256"); }

tar --sort=name --owner=0 --group=0 --numeric-owner -C "$DIST" -czf "$DIST/$NAME.tar.gz" "$NAME"
checksum "$DIST/$NAME.tar.gz"

# The .deb (dpkg-deb; jpackage would bundle a runtime of its own and a native launcher that knows
# nothing of stdout being the wire): /usr/lib/mcp-stdio holds the tree, /usr/bin/mcp-stdio links
# to its launcher, which follows the link to find it.
DEBVERSION=$(printf '%s' "$VERSION" | sed 's/-/~/')
DEB="$DIST/deb-root"
mkdir -p "$DEB/DEBIAN" "$DEB/usr/lib" "$DEB/usr/bin" "$DEB/usr/share/doc/mcp-stdio"
cp -a "$TREE" "$DEB/usr/lib/mcp-stdio"
mv "$DEB/usr/lib/mcp-stdio/README.md" "$DEB/usr/share/doc/mcp-stdio/README.md"
ln -s ../lib/mcp-stdio/bin/mcp-stdio "$DEB/usr/bin/mcp-stdio"
size=$(du -sk "$DEB/usr" | cut -f1)
cat > "$DEB/DEBIAN/control" <<EOF
Package: mcp-stdio
Version: $DEBVERSION
Architecture: amd64
Maintainer: mcp-stdio developers <mcp-stdio@users.noreply.github.com>
Installed-Size: $size
Depends: libc6 (>= 2.17)
Section: net
Priority: optional
Homepage: https://github.com/mcp-stdio/mcp-stdio
Description: MCP stdio gateway: relay and serve the Model Context Protocol
 Relays an MCP host's stdio to a remote MCP server over Streamable HTTP or
 HTTP+SSE (with OAuth 2.1), and serves a local stdio MCP server as a
 Streamable HTTP endpoint. Brings its own trimmed Java runtime.
EOF
fakeroot dpkg-deb --build -Zxz "$DEB" "$DIST/mcp-stdio_${DEBVERSION}_amd64.deb" >&2
rm -rf "$DEB"
checksum "$DIST/mcp-stdio_${DEBVERSION}_amd64.deb"

# The image's base: what a runtime linked here needs of the system (the C library and its
# loader), a non-root user (65532, as distroless images use), /tmp, and the health check: the
# gateway's own `probe` of /healthz on the default port. Jib builds the image from it (pom.xml).
BASE="$DIST/image-base"
mkdir -p "$BASE/rootfs/etc" "$BASE/rootfs/tmp" "$BASE/rootfs/lib64" "$BASE/rootfs/lib/x86_64-linux-gnu"
chmod 1777 "$BASE/rootfs/tmp"
# The system libraries ldd names for the runtime (not the runtime's own, which ldd finds beside
# them through $ORIGIN), and glibc's NSS modules, which it loads at run time without ldd seeing them
# (built into libc since 2.34; copied where the build host has them).
lddout=$(for f in "$TREE/runtime/bin/java" "$TREE/runtime/lib/"*.so "$TREE/runtime/lib/server/libjvm.so"; do ldd "$f"; done)
# (a library ldd cannot find may be the runtime's own, libjvm.so, which the JVM loads by path)
for missing in $(printf '%s\n' "$lddout" | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p' | sort -u); do
  [ -n "$(find "$TREE/runtime" -name "$missing" -print | head -n 1)" ] \
    || die "the runtime needs $missing, which this machine does not have"
done
libs=$(printf '%s\n' "$lddout" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | grep -v -F "$TREE/" | sort -u)
for nss in libnss_files.so.2 libnss_dns.so.2 libresolv.so.2; do
  [ -e "/lib/x86_64-linux-gnu/$nss" ] && libs="$libs /lib/x86_64-linux-gnu/$nss"
done
for lib in $libs /lib64/ld-linux-x86-64.so.2; do
  real=$(readlink -f "$lib")
  case $lib in
    /lib64/*) cp "$real" "$BASE/rootfs/lib64/$(basename "$lib")" ;;
    *) cp "$real" "$BASE/rootfs/lib/x86_64-linux-gnu/$(basename "$lib")" ;;
  esac
done
printf 'root:x:0:0:root:/root:/sbin/nologin\nmcp:x:65532:65532:mcp-stdio:/tmp:/sbin/nologin\n' > "$BASE/rootfs/etc/passwd"
printf 'root:x:0:\nmcp:x:65532:\n' > "$BASE/rootfs/etc/group"
printf 'hosts: files dns\n' > "$BASE/rootfs/etc/nsswitch.conf"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$BASE/rootfs" -cf "$BASE/layer.tar" .
diff_id=$(sha256sum "$BASE/layer.tar" | cut -d' ' -f1)
cat > "$BASE/config.json" <<EOF
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":{"Env":["PATH=/opt/mcp-stdio/runtime/bin"],"Healthcheck":{"Test":["CMD","/opt/mcp-stdio/runtime/bin/java","-Xshare:auto","-XX:TieredStopAtLevel=1","-XX:+UseSerialGC","-Xlog:disable","-Xlog:all=warning:stderr","-jar","/opt/mcp-stdio/lib/mcp-stdio.jar","probe","http://127.0.0.1:8080/healthz"],"Interval":30000000000,"Timeout":10000000000,"StartPeriod":20000000000,"Retries":3}},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"src/dist/build-dist.sh: C library, user 65532, /tmp"}]}
EOF
printf '[{"Config":"config.json","RepoTags":["mcp-stdio-base:%s"],"Layers":["layer.tar"]}]\n' "$VERSION" > "$BASE/manifest.json"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$BASE" -cf "$DIST/image-base.tar" manifest.json config.json layer.tar
rm -rf "$BASE"

# The image has no shell to run the launcher: its entrypoint runs the runtime's java with serve's
# JVM options from an argument file, as the launcher would pass them at /opt/mcp-stdio; the
# launcher itself (a shell script) stays out of the image.
mkdir -p "$DIST/image-root/opt"
cp -a "$TREE" "$DIST/image-root/opt/mcp-stdio"
rm -r "$DIST/image-root/opt/mcp-stdio/README.md" "$DIST/image-root/opt/mcp-stdio/bin"
MCP_STDIO_PRINT_JVM_OPTIONS=1 "$TREE/bin/mcp-stdio" serve | while IFS= read -r option; do
  case $option in
    *"$TREE"*) option="${option%%"$TREE"*}/opt/mcp-stdio${option#*"$TREE"}" ;;
  esac
  printf '%s\n' "$option"
done > "$DIST/image-root/opt/mcp-stdio/lib/serve.jvmargs"
grep -q -x -- '-XX:AOTCache=/opt/mcp-stdio/lib/mcp-stdio-serve.aot' "$DIST/image-root/opt/mcp-stdio/lib/serve.jvmargs" \
  || die "serve's JVM options name no start-up cache"
touch -h -d @1 "$DIST/image-root/opt/mcp-stdio/lib/serve.jvmargs"

say "$(cd "$DIST" && du -h ./*.tar.gz ./*.deb | tr '\n' ' ')"
