#!/bin/sh
# Fuzz/run.sh TARGET SECONDS [libFuzzer options...]: builds spool-fuzz with libFuzzer and AddressSanitizer
# (its own build directory, so the plain build is untouched) and fuzzes TARGET for SECONDS, starting from
# Fuzz/corpus/TARGET (kept: what libFuzzer finds new is added there) and the seeds of Fuzz/seeds.sh.
# A crash leaves its input in Fuzz/crashes/ and the script exits non-zero.
set -e
target=${1:?usage: Fuzz/run.sh TARGET SECONDS}
seconds=${2:?usage: Fuzz/run.sh TARGET SECONDS}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# -parse-as-library: libFuzzer brings main; -DFUZZING turns the replayer into LLVMFuzzerTestOneInput.
swift build --build-path .build/fuzz --product spool-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -D -Xswiftc FUZZING >.build/fuzz-build.log 2>&1 ||
    { cat .build/fuzz-build.log >&2; exit 70; }
corpus="Fuzz/corpus/$target"
mkdir -p "$corpus" Fuzz/crashes
sh Fuzz/seeds.sh "$target" "$corpus"
# Swift's own backtracer would wait on a crash that libFuzzer reports itself.
SWIFT_BACKTRACE=enable=no SPOOL_FUZZ_TARGET=$target exec .build/fuzz/debug/spool-fuzz -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix=Fuzz/crashes/"$target"- -print_final_stats=1 "$@" "$corpus"
