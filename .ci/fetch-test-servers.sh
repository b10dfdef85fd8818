#!/usr/bin/env bash
# Fetches the two test-only MongoDB wire servers the MongoDB suites run against:
# - mongo-java-server (in-memory backend) from Maven Central into .tools/mongo-java-server/, with the
#   tiny launcher the tests start: .ci/fetch-mongo-java-server.sh (needs mvn and javac, JDK 17+);
# - FerretDB (SQLite backend), built from the Go module proxy into .tools/ferretdb/:
#   .ci/fetch-ferretdb.sh (needs go).
# Idempotent: a server whose pinned version is in place is left alone. Both are tried; the script
# fails afterwards when either could not be fetched.
set -uo pipefail

CI_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
failed=()
bash "$CI_DIR/fetch-mongo-java-server.sh" || failed+=(mongo-java-server)
bash "$CI_DIR/fetch-ferretdb.sh" || failed+=(FerretDB)
if ((${#failed[@]})); then
  echo "fetch-test-servers: could not fetch: ${failed[*]}" >&2
  exit 1
fi
