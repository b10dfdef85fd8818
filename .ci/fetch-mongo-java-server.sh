#!/usr/bin/env bash
# Fetches the first test-only MongoDB wire server (mongo-java-server, in-memory backend) from Maven
# Central into .tools/mongo-java-server/ and compiles the tiny launcher the tests start.
# Called by .ci/fetch-test-servers.sh.
# Idempotent: does nothing when the pinned version's jars and the compiled launcher exist.
# Needs: mvn, javac (JDK 17+). Network: Maven Central only (Maven's default repository).
set -euo pipefail

MONGO_JAVA_SERVER_VERSION="1.47.0" # newest on Maven Central; built for Java 17 (class file 61)
DEPENDENCY_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools/mongo-java-server"
LIB="$TOOLS/lib"
CLASSES="$TOOLS/classes"
LAUNCHER_SRC="$ROOT/test/support/mongo-launcher/MongoLauncher.java"
STAMP="$TOOLS/version"

for tool in mvn javac java; do
  command -v "$tool" >/dev/null || { echo "fetch-mongo-java-server: '$tool' is not installed" >&2; exit 1; }
done

have_jars() {
  [[ -f "$STAMP" && "$(cat "$STAMP")" == "$MONGO_JAVA_SERVER_VERSION" ]] &&
    compgen -G "$LIB/mongo-java-server-core-$MONGO_JAVA_SERVER_VERSION.jar" >/dev/null &&
    compgen -G "$LIB/mongo-java-server-memory-backend-$MONGO_JAVA_SERVER_VERSION.jar" >/dev/null &&
    compgen -G "$LIB/netty-*.jar" >/dev/null
}

if have_jars; then
  echo "fetch-mongo-java-server: mongo-java-server $MONGO_JAVA_SERVER_VERSION already in $LIB"
else
  echo "fetch-mongo-java-server: fetching mongo-java-server $MONGO_JAVA_SERVER_VERSION and its runtime dependencies"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.test-support</groupId>
  <artifactId>fetch-mongo-java-server</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>de.bwaldvogel</groupId>
      <artifactId>mongo-java-server</artifactId>
      <version>$MONGO_JAVA_SERVER_VERSION</version>
    </dependency>
    <dependency>
      <groupId>de.bwaldvogel</groupId>
      <artifactId>mongo-java-server-memory-backend</artifactId>
      <version>$MONGO_JAVA_SERVER_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
  rm -rf "$LIB" "$CLASSES" "$STAMP"
  mkdir -p "$LIB"
  mvn -q -B -Dstyle.color=never -f "$work/pom.xml" "$DEPENDENCY_PLUGIN:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$LIB"
  have_jars_now=$(ls "$LIB"/*.jar 2>/dev/null | wc -l)
  if [[ "$have_jars_now" -eq 0 ]]; then
    echo "fetch-mongo-java-server: no jars were copied into $LIB" >&2
    exit 1
  fi
  echo "$MONGO_JAVA_SERVER_VERSION" >"$STAMP"
fi

# Recompile the launcher when missing or older than its source.
if [[ ! -f "$CLASSES/MongoLauncher.class" || "$LAUNCHER_SRC" -nt "$CLASSES/MongoLauncher.class" ]]; then
  mkdir -p "$CLASSES"
  javac --release 17 -cp "$LIB/*" -d "$CLASSES" "$LAUNCHER_SRC"
  echo "fetch-mongo-java-server: compiled launcher into $CLASSES"
fi

have_jars || { echo "fetch-mongo-java-server: jars incomplete in $LIB" >&2; exit 1; }
echo "fetch-mongo-java-server: ready ($(ls "$LIB"/*.jar | wc -l) jars)"
