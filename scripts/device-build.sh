# Sourced by the GPU-machine scripts: names the output folder ($out, from $OUT) and the build
# ($build, $ema), records the GPU and the host's cores, configures once and builds; exits on a
# failed build with its errors.
out=${OUT:-/tmp/ema-out}
mkdir -p "$out"
build=build/device
ema=$build/src/ema
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
nproc | sed 's/^/host cores: /'
if [ ! -f $build/build.ninja ]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMA_WITH_CUDA=ON > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
fi
cmake --build $build -j 16 > "$out/build.log" 2>&1 || { grep -E "error" -A5 "$out/build.log" | head -60; exit 1; }
echo "== build ok"
