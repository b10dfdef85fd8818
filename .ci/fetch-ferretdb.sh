#!/usr/bin/env bash
# Builds the second test-only MongoDB wire server, FerretDB (pinned below), into .tools/ferretdb/.
# FerretDB is a Go program; its SQLite backend (`--handler=sqlite`) needs no other server, and it
# reports wire version 21 (MongoDB 7.0). The module source comes from the Go module proxy and is
# built here, since no registry reachable from CI carries a FerretDB binary.
# Idempotent: does nothing when the pinned version's binary exists.
# Needs: go (1.21+). Network: the Go module proxy (GOPROXY) only.
set -euo pipefail

FERRETDB_VERSION="v1.24.2" # the last 1.x release: SQLite backend, no PostgreSQL/DocumentDB needed
MODULE="github.com/FerretDB/FerretDB"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools/ferretdb"
BIN="$TOOLS/ferretdb"
STAMP="$TOOLS/version"

if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$FERRETDB_VERSION" ]]; then
  echo "fetch-ferretdb: FerretDB $FERRETDB_VERSION already in $BIN"
  exit 0
fi

command -v go >/dev/null || { echo "fetch-ferretdb: 'go' is not installed" >&2; exit 1; }

# Never let the go command fetch another toolchain, resolve modules from go.mod as written, and
# build a static binary (pure Go: FerretDB's SQLite is modernc.org/sqlite; no C compiler needed).
export GOTOOLCHAIN=local GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0

started=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "fetch-ferretdb: downloading $MODULE@$FERRETDB_VERSION"
(cd "$work" && go mod init fetch-ferretdb >/dev/null 2>&1 && go mod download -json "$MODULE@$FERRETDB_VERSION" >"$work/module.json")
dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' "$work/module.json" | head -n1)"
[[ -n "$dir" && -d "$dir" ]] || { echo "fetch-ferretdb: no module directory in: $(cat "$work/module.json")" >&2; exit 1; }

# The module cache is read-only, and the build reads its version from build/version/version.txt
# (normally written by FerretDB's own build from git, which a module download does not have).
src="$work/src"
cp -R "$dir" "$src"
chmod -R u+w "$src"
echo "$FERRETDB_VERSION" >"$src/build/version/version.txt"

echo "fetch-ferretdb: building (a few minutes on 2 cores)"
mkdir -p "$TOOLS"
rm -f "$STAMP"
(cd "$src" && go build -trimpath -ldflags="-s -w" -o "$BIN.tmp" ./cmd/ferretdb)
mv -f "$BIN.tmp" "$BIN"

reported="$("$BIN" --version 2>&1 | head -n 20 || true)"
if [[ "$reported" != *"$FERRETDB_VERSION"* ]]; then
  echo "fetch-ferretdb: the built binary does not report $FERRETDB_VERSION:" >&2
  echo "$reported" >&2
  exit 1
fi
echo "$FERRETDB_VERSION" >"$STAMP"
echo "fetch-ferretdb: built FerretDB $FERRETDB_VERSION into $BIN in $((SECONDS - started)) s"
