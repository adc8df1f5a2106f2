/* The libFuzzer entry point every harness in tests/fuzz/ defines. Built
 * with -DDCN_FUZZ=ON (clang) each fuzz_<name>.c links libFuzzer's main;
 * in the ordinary builds it links replay_main.c instead and replays the
 * seed corpus and the regression inputs as a ctest test. */
#ifndef DCN_FUZZ_H
#define DCN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
