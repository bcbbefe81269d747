#!/usr/bin/env bash
# Runs the README's quick start as a newcomer meets it: on this machine, but with bubblewrap, redis-server, podman
# and runc hidden (a private mount namespace in which the folders holding them are overlaid with those names removed).
# Needs root (or CAP_SYS_ADMIN) for `unshare -m`; CI and the lead use it to check the fresh-machine claims of the
# README. It is not part of `npm test`.
#
#   scripts/fresh-machine-check.sh                     demo, then the whole test suite (npm test)
#   scripts/fresh-machine-check.sh demo                 only `npm run demo`
#   scripts/fresh-machine-check.sh test [jest args]     only `npm test` (e.g. `test test/e2e/app-flows.test.ts`)
#   scripts/fresh-machine-check.sh run CMD [ARGS]       any command on the simulated machine
#
# Exits non-zero when the demo or the tests fail there.
set -euo pipefail
cd "$(dirname "$0")/.."

HIDE=(bwrap redis-server podman runc crun)

if [ "${AIDER_BOT_FRESH_INSIDE:-}" != "1" ]; then
  if [ "$(id -u)" != 0 ] && ! unshare -rm true 2>/dev/null; then
    echo "fresh-machine-check: needs root (or user namespaces) for 'unshare -m' to hide the tools" >&2
    exit 2
  fi
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/fresh-machine.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  # Every folder on PATH (and the usual system folders) that holds one of the tools.
  dirs=()
  IFS=: read -ra path_dirs <<<"$PATH:/usr/bin:/usr/sbin:/usr/local/bin:/usr/local/sbin:/bin:/sbin"
  for dir in "${path_dirs[@]}"; do
    [ -d "$dir" ] || continue
    real=$(realpath "$dir")
    for tool in "${HIDE[@]}"; do
      if [ -e "$real/$tool" ] || [ -L "$real/$tool" ]; then
        case " ${dirs[*]:-} " in *" $real "*) ;; *) dirs+=("$real") ;; esac
      fi
    done
  done
  unshare_cmd=(unshare -m)
  [ "$(id -u)" = 0 ] || unshare_cmd=(unshare -rm)
  AIDER_BOT_FRESH_INSIDE=1 AIDER_BOT_FRESH_SCRATCH="$scratch" AIDER_BOT_FRESH_DIRS="${dirs[*]:-}" \
    exec "${unshare_cmd[@]}" "$0" "$@"
fi

# Inside the private mount namespace: overlay each folder with the tools removed (an overlay whiteout per name), or,
# where overlayfs is unavailable, bind-mount a copy of the folder without them.
mount --make-rprivate / 2>/dev/null || true
i=0
for dir in ${AIDER_BOT_FRESH_DIRS:-}; do
  i=$((i + 1))
  base="$AIDER_BOT_FRESH_SCRATCH/$i"
  mkdir -p "$base/upper" "$base/work"
  overlay() {
    for tool in "${HIDE[@]}"; do
      if [ -e "$dir/$tool" ] || [ -L "$dir/$tool" ]; then mknod "$base/upper/$tool" c 0 0 || return 1; fi
    done
    mount -t overlay overlay -o "lowerdir=$dir,upperdir=$base/upper,workdir=$base/work" "$dir"
  }
  if ! overlay 2>/dev/null; then
    mkdir -p "$base/copy"
    cp -a "$dir/." "$base/copy/"
    for tool in "${HIDE[@]}"; do rm -f "$base/copy/$tool"; done
    mount --bind "$base/copy" "$dir"
  fi
done

for tool in "${HIDE[@]}"; do
  if command -v "$tool" >/dev/null 2>&1; then
    echo "fresh-machine-check: could not hide $tool ($(command -v "$tool"))" >&2
    exit 2
  fi
done
echo "fresh-machine-check: simulated fresh machine: ${HIDE[*]} are not installed here"

run_demo() {
  echo "── npm run demo ──"
  npm run --silent demo
}
run_tests() {
  echo "── npm test $* ──"
  npm test -- "$@"
}

case "${1:-all}" in
  demo) run_demo ;;
  test)
    shift
    run_tests "$@"
    ;;
  run)
    shift
    "$@"
    ;;
  all)
    status=0
    run_demo || status=$?
    run_tests || status=$?
    exit "$status"
    ;;
  *)
    echo "usage: $0 [all | demo | test [jest args] | run CMD [ARGS]]" >&2
    exit 2
    ;;
esac
