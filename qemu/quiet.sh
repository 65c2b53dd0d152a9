#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One build step, told in one line:
#
#   qemu/quiet.sh [--first] WHAT COMMAND [ARGS...]
#
# With GEMBUF_BUILD_LOG set (make run sets it), print "[gembuf] WHAT" and
# append everything COMMAND prints to that log (--first starts the log
# afresh); if it fails, print the log's last lines and where the rest
# is.  Without GEMBUF_BUILD_LOG, run COMMAND as it is (make test).
#
#   qemu/quiet.sh --failed LOG WHAT
#
# prints the same failure report for LOG (the guest's console).

set -uo pipefail

TAIL=30

failed() {
	local log=$1 what=$2
	printf '[gembuf] %s failed; its last lines:\n' "$what" >&2
	tail -n "$TAIL" "$log" | sed 's/\r$//; s/^/  /' >&2
	printf '[gembuf] the whole log: %s\n' "$log" >&2
}

if [ "${1:-}" = --failed ]; then
	failed "$2" "$3"
	exit 1
fi

first=
if [ "${1:-}" = --first ]; then
	first=1
	shift
fi
what=$1
shift

log=${GEMBUF_BUILD_LOG:-}
[ -n "$log" ] || exec "$@"

mkdir -p "$(dirname "$log")"
[ -z "$first" ] || : >"$log"
printf '[gembuf] %s\n' "$what" >&2
printf '\n=== %s: %s (%s)\n' "$what" "$*" "$(date '+%F %T')" >>"$log"
"$@" >>"$log" 2>&1
rc=$?
[ "$rc" = 0 ] || failed "$log" "$what"
exit "$rc"
