#!/usr/bin/env bash
# The Python package's part of `make test`: `pip install .` (the wheel, built by
# scikit-build-core from the same CMake targets) into a virtual environment under build/,
# then its pytest suite. GPU tests skip without a GPU or without torch.
set -euo pipefail
cd "$(dirname "$0")/.."
# MEMHIER_PYTHON_ENV=system installs into the interpreter's own environment instead of a
# virtual one (a machine without PyPI whose tools are installed there, e.g. the GPU host).
if [[ ${MEMHIER_PYTHON_ENV:-venv} == system ]]; then
  py=${PYTHON:-python3}
else
  venv=build/venv
  if [[ ! -x $venv/bin/python ]]; then
    # System packages stay visible (numpy, torch where installed); our tools go inside.
    "${PYTHON:-python3}" -m venv --system-site-packages "$venv"
  fi
  py=$venv/bin/python
fi
missing=()
for mod in nanobind scikit_build_core pytest numpy; do
  "$py" -c "import $mod" 2>/dev/null || missing+=("${mod//_/-}")
done
if ((${#missing[@]})); then
  echo "test-python: installing ${missing[*]} with $py"
  "$py" -m pip install -q "${missing[@]}"
fi
# scikit-build-core hands CMake the interpreter's own compiler name (g++) when CXX is unset,
# and ccache keys on the name: the C++ build found c++, so every host object would miss the
# objects that build just made. The same name here (CMake's first choice) keeps them shared.
if [[ -z ${CXX:-} ]] && command -v c++ >/dev/null 2>&1; then
  export CXX=c++
fi
# No build isolation: the tools above build it, and a machine without PyPI works the same.
"$py" -m pip install -q --no-build-isolation --no-deps \
  -Ccmake.define.MEMHIER_WERROR="${MEMHIER_WERROR:-OFF}" .
"$py" -m pytest -q python/tests
