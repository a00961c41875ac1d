#!/bin/sh
# gpu-pack.sh - build what bench/gpu-check.sh runs on a GPU node that has
# the driver but neither the compilers nor the libraries' -dev packages:
# pd2bw-profile, its CUDA backend and the GPU kernel test, built here for
# one GPU generation, with the shared libraries they load that are not
# the C library's, CUDA's or the driver's (GLPK, libyaml, OpenBLAS and
# theirs) copied beside them.  Carry the folder, then on the GPU node:
#
#   sh bench/gpu-pack.sh [PACK]        (here; default build/gpu-pack)
#   B=PACK/b sh bench/gpu-check.sh     (there, in a checkout)
#
# gpu-check.sh finds PACK/lib itself (a file PACK/gpu-pack marks a pack;
# BUILD=0 and SUITE=0 are implied).  The node still needs CUDA's own
# runtime libraries (cuBLASLt, CUPTI: the toolkit's lib64, which the
# programs' run path names) beside the driver.  NVCC_GENCODE chooses the
# GPU generation (default sm_90, Hopper); the build directory is
# build/gpu-pack-build.  The pack holds
# copies of this machine's libraries: the GPU node needs the same
# processor architecture and a C library at least as new.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
PACK=${1:-build/gpu-pack}
BB=build/gpu-pack-build
GENCODE=${NVCC_GENCODE:--gencode arch=compute_90,code=sm_90}
command -v nvcc >/dev/null 2>&1 || {
	echo "gpu-pack.sh: nvcc is not on the PATH: the CUDA backend needs it" >&2
	exit 1
}
make -j"$(nproc 2>/dev/null || echo 2)" B="$BB" NVCC_GENCODE="$GENCODE" \
	"$BB/pd2bw-profile" "$BB/pd2bw-cuda.so" "$BB/tests/test_prof_gpu" >&2
rm -rf "$PACK"
mkdir -p "$PACK/b/tests" "$PACK/lib"
cp "$BB/pd2bw-profile" "$BB/pd2bw-cuda.so" "$PACK/b/"
cp "$BB/tests/test_prof_gpu" "$PACK/b/tests/"
# the libraries ldd resolves, less the C library's own, the compiler's
# runtime, CUDA's (found through the programs' rpath or the driver) and
# the loader
for f in "$PACK/b/pd2bw-profile" "$PACK/b/pd2bw-cuda.so" \
	"$PACK/b/tests/test_prof_gpu"; do
	ldd "$f"
done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
	while read -r name path; do
		case $name in
		libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | \
		ld-linux* | libstdc++.so* | libgcc_s.so* | libcuda* | \
		libcudart* | libcublas* | libcupti* | libnv*) ;;
		*) cp -L "$path" "$PACK/lib/$name" ;;
		esac
	done
printf 'pd2bw gpu-pack %s, %s\n' "$(git rev-parse --short HEAD 2>/dev/null)" \
	"$GENCODE" >"$PACK/gpu-pack"
du -sh "$PACK" | awk '{ printf "gpu-pack.sh: %s in %s\n", $1, $2 }'
ls "$PACK/lib"
