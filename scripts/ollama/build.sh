#!/usr/bin/env bash
# Builds the Ollama server (CPU backend) from the Go module proxy and caches it
# as $(go env GOPATH)/bin/ollama, for the real-server suite (PAKTON_OLLAMA=1).
#
#   bash scripts/ollama/build.sh          # build unless the cached binary is this version
#   OLLAMA_VERSION=v0.17.4 bash scripts/ollama/build.sh
#
# Ollama's module zip leaves out llama.cpp's vendor/ headers (Go module zips
# drop every directory named "vendor"). Two come from Debian packages
# (nlohmann-json3-dev, libstb-dev); miniaudio.h has none and is replaced by the
# stand-in in scripts/ollama/include, which only refuses audio clips. The build
# takes about 15-25 minutes of CPU on 2 cores; the binary is then reused.
set -euo pipefail

version="${OLLAMA_VERSION:-v0.17.4}"
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(go env GOPATH)/bin/ollama"
stamp="$bin.version"

if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "ollama $version: cached at $bin"
  exit 0
fi

missing=()
[ -f /usr/include/nlohmann/json_fwd.hpp ] || missing+=(nlohmann-json3-dev)
[ -f /usr/include/stb/stb_image.h ] || missing+=(libstb-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ollama build: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null \
      || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null; } \
      || { echo "ollama build: could not install ${missing[*]} (apt-get install ${missing[*]})" >&2; exit 1; }
  else
    echo "ollama build: needs the Debian packages ${missing[*]}: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

command -v g++ >/dev/null 2>&1 || { echo "ollama build: needs a C++ compiler (apt-get install g++)" >&2; exit 1; }

echo "ollama build: go install github.com/ollama/ollama@$version (CPU backend; slow the first time)"
start=$(date +%s)
cppflags="-I$here/include${CGO_CPPFLAGS:+ $CGO_CPPFLAGS}"
CGO_ENABLED=1 CGO_CPPFLAGS="$cppflags" go install -ldflags "-X=github.com/ollama/ollama/version.Version=${version#v}" \
  "github.com/ollama/ollama@$version"
echo "$version" >"$stamp"
echo "ollama build: $bin built in $(( $(date +%s) - start ))s"
