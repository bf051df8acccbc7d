#!/usr/bin/env bash
# Installs what memhier needs to build, and only what is missing.
# Exit 0 when everything is present (or was installed), nonzero otherwise.
set -euo pipefail

# With --python: what `pip install .` of the Python package needs from the distribution
# instead (an interpreter with venv and its headers); the C++ build never needs Python.
python_only=false
[[ ${1:-} == --python ]] && python_only=true

# command-or-file to check -> Debian package that provides it
declare -A need=(
  [cmake]=cmake
  [ninja]=ninja-build
  [/usr/include/CLI/CLI.hpp]=libcli11-dev
  [/usr/include/nlohmann/json.hpp]=nlohmann-json3-dev
  [/usr/include/fmt/format.h]=libfmt-dev
  [/usr/include/gtest/gtest.h]=libgtest-dev
  [/usr/include/zlib.h]=zlib1g-dev
)

if $python_only; then
  need=([python3]=python3)
fi

missing=()
for what in "${!need[@]}"; do
  if [[ $what == /* ]]; then
    [[ -e $what ]] || missing+=("${need[$what]}")
  else
    command -v "$what" >/dev/null 2>&1 || missing+=("${need[$what]}")
  fi
done

# CMake 3.24 or newer: the presets and CUDA architecture handling need it.
if command -v cmake >/dev/null 2>&1; then
  v=$(cmake --version | awk 'NR==1{print $3}')
  if [[ $(printf '%s\n3.24\n' "$v" | sort -V | head -n1) != 3.24 ]]; then
    echo "bootstrap: cmake $v is older than 3.24; install a newer CMake (e.g. 'pip install cmake' or Kitware's apt repository)." >&2
    exit 1
  fi
fi

if $python_only && command -v python3 >/dev/null 2>&1; then
  python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
  python3 -c 'import os, sysconfig; assert os.path.exists(sysconfig.get_paths()["include"] + "/Python.h")' \
    2>/dev/null || missing+=(python3-dev)
fi

if ((${#missing[@]})); then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  cmd="apt-get install -y --no-install-recommends ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    echo "bootstrap: installing ${missing[*]}"
    (apt-get install -y --no-install-recommends "${missing[@]}" ||
      { apt-get update -qq && apt-get install -y --no-install-recommends "${missing[@]}"; }) >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "bootstrap: installing ${missing[*]} with sudo"
    (sudo apt-get install -y --no-install-recommends "${missing[@]}" ||
      { sudo apt-get update -qq && sudo apt-get install -y --no-install-recommends "${missing[@]}"; }) >/dev/null
  else
    echo "bootstrap: missing packages; run as root: sudo $cmd" >&2
    exit 1
  fi
fi

# Chromium for `make test`'s browser test of the report (--browser): it skips, saying why,
# where Chromium cannot be had (a GPU host without a package mirror); CI requires it
# (MEMHIER_REQUIRE_BROWSER=1 makes the missing browser a failure).
if [[ ${1:-} == --browser ]]; then
  if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]]; then
      echo "bootstrap: installing chromium (the report's browser test)"
      (apt-get install -y --no-install-recommends chromium ||
        { apt-get update -qq && apt-get install -y --no-install-recommends chromium; }) \
        >/dev/null 2>&1 || echo "bootstrap: chromium not installed; the report's browser test will skip"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      (sudo apt-get install -y --no-install-recommends chromium ||
        { sudo apt-get update -qq && sudo apt-get install -y --no-install-recommends chromium; }) \
        >/dev/null 2>&1 || echo "bootstrap: chromium not installed; the report's browser test will skip"
    else
      echo "bootstrap: no chromium; the report's browser test will skip (sudo apt-get install chromium)"
    fi
  fi
  exit 0
fi

# ccache, where it can be had: the wheel's build of `make test` then takes the C++ build's
# objects (CUDA code for every card is most of the build). Optional: nothing fails without it.
if ! $python_only && ! command -v ccache >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]]; then
    (apt-get install -y --no-install-recommends ccache ||
      { apt-get update -qq && apt-get install -y --no-install-recommends ccache; }) \
      >/dev/null 2>&1 || echo "bootstrap: ccache not installed (optional; builds take longer)"
  fi
fi

# The cudnn-frontend's C++ headers (the attention ladder's cuDNN line) from its PyPI wheel,
# only its include/ folder, into .deps/cudnn-frontend/include (ignored by git). Optional: where
# pip cannot reach PyPI (a GPU host) the ladder builds without that line; copy the folder there.
fetch_cudnn_frontend() {
  local dest tmp
  dest="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.deps/cudnn-frontend"
  [[ -e $dest/include/cudnn_frontend.h ]] && return 0
  tmp=$(mktemp -d) || return 0
  # Any interpreter's pip will do: the headers are the same in every wheel of the release.
  if timeout 300 python3 -m pip download --quiet --retries 1 --timeout 15 --no-deps \
    --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --dest "$tmp" nvidia-cudnn-frontend==1.32.0 >/dev/null 2>&1 &&
    python3 - "$tmp" "$dest" <<'EOF' 2>/dev/null; then
import glob, os, shutil, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(glob.glob(os.path.join(tmp, "*.whl"))[0]) as z:
    z.extractall(os.path.join(tmp, "x"), [n for n in z.namelist() if n.startswith("include/")])
os.makedirs(dest, exist_ok=True)
shutil.rmtree(os.path.join(dest, "include"), ignore_errors=True)
shutil.move(os.path.join(tmp, "x", "include"), os.path.join(dest, "include"))
EOF
    echo "bootstrap: cudnn-frontend 1.32.0 headers in .deps/cudnn-frontend/include"
  else
    echo "bootstrap: cudnn-frontend headers not fetched (no pip or no network):" \
      "attention builds without its cuDNN line"
  fi
  rm -rf "$tmp"
}
$python_only || fetch_cudnn_frontend

# nvcc: from PATH, CUDACXX, or the default installation folder.
if ! command -v nvcc >/dev/null 2>&1 && [[ -z ${CUDACXX:-} ]] && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "bootstrap: the CUDA toolkit (nvcc) was not found; install CUDA 12 or newer and put its bin folder on PATH." >&2
  exit 1
fi
exit 0
