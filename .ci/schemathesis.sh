#!/usr/bin/env bash
# Fuzzes the running service against the OpenAPI documents it serves (schemathesis, pinned below):
# the partner document (/v1/openapi.json) with a sandbox key, then the operators' document
# (/internal/openapi.json, fetched with the admin token) with the admin token.
# Starts the service (embedded stores, fresh DATA_DIR, free loopback port), makes a partner with the
# CLI, runs every operation, stops the service, exits non-zero when either run failed.
#
# Both documents: every check (--checks all), positive and negative data (--mode all), all four
# phases (examples, coverage, fuzzing, stateful), a fixed seed; any failure fails the run.
#
#   bash .ci/schemathesis.sh                 # the CI run (seed 4242, 40 examples per operation)
#   ST_EXAMPLES=300 ST_SEED=7 bash .ci/schemathesis.sh
#   ST_SEED=9001 bash .ci/schemathesis.sh    # the second seed, run by `npm run test:faults` (test/faults/schemathesis-second-seed.test.ts)
#   ST_SERVER_LOG=/tmp/st.log bash .ci/schemathesis.sh   # keep the service's log (one line per request)
#   ST_DOCUMENTS=operator ST_ARGS='--include-path-regex ^/internal/orders --continue-on-failure' bash .ci/schemathesis.sh
#     (ST_DOCUMENTS: "partner operator" by default; ST_ARGS: more schemathesis options for each run)
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
EXAMPLES="${ST_EXAMPLES:-40}"
SEED="${ST_SEED:-4242}"
PHASES=examples,coverage,fuzzing,stateful
DOCUMENTS="${ST_DOCUMENTS:-partner operator}"
read -r -a EXTRA_ARGS <<<"${ST_ARGS:-}"
VENV=.venv

if [[ "$("$VENV/bin/schemathesis" --version 2>/dev/null || true)" != *"version $SCHEMATHESIS_VERSION" ]]; then
  echo "== installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  [[ -x "$VENV/bin/pip" ]] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

# Build when dist/ is missing or older than any source file.
if [[ ! -f dist/src/main.js ]] || [[ -n "$(find src projections -newer dist/src/main.js -name '*.ts' -print -quit)" ]]; then
  echo "== building"
  npm run build --silent
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ -n "${ST_SERVER_LOG:-}" ]]; then cp "$WORK/server.log" "$ST_SERVER_LOG"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

export DATA_DIR="$WORK/data"
# With an ADMIN_TOKEN, so the fuzzer reaches the operations API (/internal) too; the config gives it the token.
ST_ADMIN_TOKEN="$(node -e 'process.stdout.write(require("crypto").randomBytes(24).toString("hex"))')"
export ST_ADMIN_TOKEN
# The fuzzer is one address that sends thousands of keyless and wrong-key requests on purpose, to
# check each answers 401; the failed-authentication throttle (its own tests: test/security) is off.
AUTH_FAILURES_PER_MIN=0 ADMIN_TOKEN="$ST_ADMIN_TOKEN" HOST=127.0.0.1 PORT=0 LOG_LEVEL=info node dist/src/main.js >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

PORT=""
for _ in $(seq 1 300); do
  PORT="$(sed -n 's/.*"port":\([0-9]*\).*listening on.*/\1/p' "$WORK/server.log" | head -n 1)"
  [[ -n "$PORT" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log"; echo "service exited before listening"; exit 1; }
  sleep 0.1
done
[[ -n "$PORT" ]] || { cat "$WORK/server.log"; echo "service did not start"; exit 1; }
BASE="http://127.0.0.1:$PORT"

node dist/src/cli/main.js partners create --name Schemathesis --rate-limit 100000 --json >"$WORK/partner.json"
field() { node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]])' "$WORK/partner.json" "$1"; }
KEY="$(field sandbox_key)"
export ST_SANDBOX_KEY="$KEY"
LIVE_KEY="$(field live_key)"
# Keys made by the CLI reach a running service within a second; wait until this one is accepted.
for _ in $(seq 1 50); do
  code="$(node -e 'fetch(process.argv[1], { headers: { Authorization: `Bearer ${process.argv[2]}` } }).then((r) => process.stdout.write(String(r.status)), () => {})' "$BASE/v1/ping" "$KEY")"
  [[ "$code" == 200 ]] && break
  sleep 0.1
done
[[ "$code" == 200 ]] || { echo "the sandbox key is not accepted (last status $code)"; exit 1; }

# Real orders, payment sessions and catalog ids for the fuzzer to draw from (see the file).
node test/fuzz/schemathesis-config.mjs "$BASE" "$KEY" "$LIVE_KEY" >"$WORK/schemathesis.toml"

# Schemathesis closes with a pytest-style banner, "=== 2 warnings in 51.66s ===", which log readers
# that know pytest take for a run that executed no test; say the same words without the banner.
closing_banner() { sed -E 's/^=+ (.*) in ([0-9.]+)s =+$/schemathesis summary: \1, after \2 s/'; }

# The operators' document is behind the admin token like the rest of /internal.
node -e 'fetch(process.argv[1], { headers: { Authorization: `Bearer ${process.argv[2]}` } }).then(async (r) => { if (r.status !== 200) throw new Error(`${r.status}`); process.stdout.write(await r.text()); })' \
  "$BASE/internal/openapi.json" "$ST_ADMIN_TOKEN" >"$WORK/internal-openapi.json"

fuzz() {
  echo "== schemathesis $SCHEMATHESIS_VERSION: $2 against $BASE (seed $SEED, $EXAMPLES examples per operation, every check, mode all, phases $PHASES)"
  "$VENV/bin/schemathesis" --config-file "$WORK/schemathesis.toml" run "$1" \
    --url "$BASE" \
    --checks all \
    --mode all \
    --phases "$PHASES" \
    --seed "$SEED" \
    --max-examples "$EXAMPLES" \
    --workers 1 \
    --request-timeout 10 \
    --generation-database none \
    --suppress-health-check all \
    --no-color \
    --output-truncate false \
    ${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"} 2>&1 | closing_banner
}

started=$SECONDS
status=0
if [[ " $DOCUMENTS " == *" partner "* ]]; then
  fuzz "$BASE/v1/openapi.json" "the partner document" || status=$?
fi
if [[ " $DOCUMENTS " == *" operator "* ]]; then
  fuzz "$WORK/internal-openapi.json" "the operators' document" || { s=$?; [[ $status -ne 0 ]] || status=$s; }
fi
echo "== schemathesis finished in $((SECONDS - started)) s with status $status"
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "== the service died during the run; the end of its log:"
  tail -n 40 "$WORK/server.log"
  status=1
elif grep -q '"level":[56]0' "$WORK/server.log"; then
  echo "== service errors logged during the run:"
  grep '"level":[56]0' "$WORK/server.log" | head -n 20
fi
exit "$status"
