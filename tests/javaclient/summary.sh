#!/bin/sh
# Prints the Java conformance suite's totals from Surefire's reports as one
# closing line ("javaclient: N passed, N failed"); exits non-zero on any
# failure or when no test ran.
set -eu
dir="$(dirname "$0")/target/surefire-reports"
total=0; bad=0; skipped=0
for f in "$dir"/*.txt; do
  [ -f "$f" ] || continue
  line=$(grep -m1 '^Tests run:' "$f" || true)
  [ -n "$line" ] || continue
  run=$(echo "$line" | sed -E 's/.*Tests run: ([0-9]+).*/\1/')
  fail=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
  err=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
  skip=$(echo "$line" | sed -E 's/.*Skipped: ([0-9]+).*/\1/')
  total=$((total + run)); bad=$((bad + fail + err)); skipped=$((skipped + skip))
done
passed=$((total - bad - skipped))
echo "javaclient: $passed passed, $bad failed, $skipped skipped"
[ "$total" -gt 0 ] && [ "$bad" -eq 0 ]
