#!/usr/bin/env bash
# Fails when qacc's own code starts a thread. Nothing does today, so ThreadSanitizer has nothing of
# ours to check (docs/sanitizers.md): a change that adds a thread must add a TSan preset and CI stage
# in the same change, and then remove this check. Usage: no_thread_creation.sh DIR...
set -euo pipefail
pattern='std::(j)?thread\b|std::async\b|pthread_create|#pragma omp|--threads'
found=$(grep -rnE "$pattern" --include='*.cc' --include='*.h' --include='*.sv' --include='CMakeLists.txt' \
  --include='*.cmake' "$@" | grep -v 'std::this_thread' || true)
if [ -n "$found" ]; then
  echo "thread creation found (add a ThreadSanitizer preset and CI stage first, docs/sanitizers.md):"
  echo "$found"
  exit 1
fi
echo "no thread creation in: $*"
