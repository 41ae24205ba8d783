#!/usr/bin/env bash
# A stand-in for cuDNN, for building and testing runner against Debian 13's libtorch-cuda-dev
# on a machine that cannot fetch cuDNN. Debian's libtorch-cuda-2.6 depends on nvidia-cudnn, an
# installer that downloads cuDNN from its vendor while it installs: with no internet that
# install fails, and with it every package that depends on it. libtorch_cuda.so also needs
# libcudnn.so.9 to load at all, on a machine with a GPU or without one.
#   cudnn_stand_in.sh package   installs an empty package that provides nvidia-cudnn, before
#                               LibTorch (apt then never runs the downloader); it provides the
#                               version libtorch-cuda-2.6 asks for (>= 9.0.0.312~)
#   cudnn_stand_in.sh library   builds libcudnn.so.9 from what LibTorch's libraries and its
#                               Python module ask of it:
#                               every cudnn* symbol, under cuDNN's symbol version, each failing
#                               with CUDNN_STATUS_NOT_INITIALIZED
# Nothing of runner calls cuDNN on a machine without a GPU, so the suite runs unchanged; on a
# GPU the stand-in makes LibTorch's cuDNN paths fail, which is why setup.sh installs it only
# when asked (RUNNER_CUDNN=stand-in). A GPU machine installs the real nvidia-cudnn instead.
set -euo pipefail

package() {
  if dpkg-query -W -f='${Status}' nvidia-cudnn 2>/dev/null | grep -q "install ok installed"; then
    return
  fi
  local work
  work=$(mktemp -d)
  mkdir -p "$work/pkg/DEBIAN"
  cat > "$work/pkg/DEBIAN/control" <<CONTROL
Package: runner-cudnn-stand-in
Version: 9.0
Architecture: all
Maintainer: runner <runner@localhost>
Provides: nvidia-cudnn (= 9.0.0.312~cuda12), libcudnn.so.9
Conflicts: nvidia-cudnn
Description: stand-in for nvidia-cudnn, for building runner without cuDNN
 Installed by runner's tools/debian13/cudnn_stand_in.sh; its library comes from the same script.
CONTROL
  dpkg-deb --build "$work/pkg" "$work/runner-cudnn-stand-in.deb" > /dev/null
  dpkg -i "$work/runner-cudnn-stand-in.deb" > /dev/null
  rm -rf "$work"
}

# After the packages: gcc is among them.
library() {
  local libdir target=/usr/local/lib/libcudnn.so.9 users=()
  libdir=/usr/lib/$(gcc -dumpmachine)
  [[ -e $libdir/libtorch_cuda.so ]] ||
    { echo "cudnn_stand_in: $libdir/libtorch_cuda.so not found: install libtorch-cuda-dev first" >&2; exit 1; }
  mapfile -t users < <(find "$libdir" /usr/lib/python3/dist-packages/torch -maxdepth 1 \
    \( -name 'libtorch*.so*' -o -name 'libc10*.so*' -o -name '_C*.so' \) -type f 2>/dev/null)
  local work
  work=$(mktemp -d)
  {
    echo '/* cuDNN stand-in: every entry fails as an uninitialised cuDNN would. */'
    echo 'const char* cudnnGetErrorString(int status) { (void)status; return "cuDNN stand-in: cuDNN is not installed"; }'
    echo 'unsigned long cudnnGetVersion(void) { return 0; }'
    echo 'unsigned long cudnnGetCudartVersion(void) { return 0; }'
    for user in "${users[@]}"; do nm -D --undefined-only "$user"; done | awk '{print $2}' |
      sed -n 's/@libcudnn\.so\.9$//p' | sort -u | grep -vx 'cudnnGetErrorString\|cudnnGetVersion\|cudnnGetCudartVersion' |
      sed 's/.*/int &(void) { return 1; }/'
  } > "$work/stand_in.c"
  printf 'libcudnn.so.9 { global: cudnn*; local: *; };\n' > "$work/version.map"
  gcc -shared -fPIC -O1 -o "$target" -Wl,-soname,libcudnn.so.9 \
    -Wl,--version-script="$work/version.map" "$work/stand_in.c"
  ldconfig
  rm -rf "$work"
}

case "${1:-}" in
  package) package ;;
  library) library ;;
  *) echo "usage: $0 package|library" >&2; exit 2 ;;
esac
