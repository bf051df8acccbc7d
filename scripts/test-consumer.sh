#!/usr/bin/env bash
# `cmake --install` of a build into <build>/install, then examples/consumer configured and
# built against it through find_package(memhier): the C++ dependency path (built, not run:
# it needs a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: test-consumer.sh BUILD_DIR}
prefix=$PWD/$build/install
rm -rf "$prefix" "$build/consumer"
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S examples/consumer -B "$build/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build/consumer"
echo "test-consumer: examples/consumer built against $prefix"
