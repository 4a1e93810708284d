// hrf's CPU stand-in for CUDA, to check the standalone driver (hrf_driver.h)
// and the kernels' placement and tally on a machine without a GPU:
//
//   g++ -std=c++17 -x c++ -DHRF_EMULATE -include hrf_emulate.h -o MP-emu MP.cu && ./MP-emu launches=20 blocks=8
//
// A kernel launch runs its threads one after another; the test threads run
// no PTX: each writes the outputs and the locations that hrf_driver.h's
// script gives it, so that the histogram the driver prints is known in
// advance (hrf's tests compute it apart). Not a GPU: no weak behaviour.
#ifndef HRF_EMULATE_H
#define HRF_EMULATE_H
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#define __global__
#define __device__
#define __constant__
#define __noinline__
#define __forceinline__ inline
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __cluster_dims__(x, y, z)  // one block at a time: no clusters

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
// (one translation unit: internal linkage, so that two tests' emulations
// loaded into one process, as hrf's tests load them, share nothing)
static dim3 blockIdx, threadIdx, blockDim;
static unsigned long long hrf_emulated_launches = 0;  // launches of hrf_test so far
// hrf_test's phases (3 for a test with shared memory: set its copies, run,
// copy them out; a barrier of the block between), each one pass over a block's threads
static unsigned hrf_test_phases = 1;
static unsigned hrf_emulated_phase = 0;

inline unsigned atomicAdd(unsigned *p, unsigned v) {
    unsigned old = *p;
    *p = old + v;
    return old;
}
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
    unsigned long long old = *p;
    *p = old + v;
    return old;
}
// one thread at a time: a thread's key matches its own lane only
inline unsigned __match_any_sync(unsigned, unsigned long long) { return 1u << (threadIdx.x % 32); }
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
inline void __syncwarp(unsigned = 0xffffffffu) {}  // one thread at a time: always in step
inline int __popc(unsigned x) { return __builtin_popcount(x); }

// what a test thread does instead of its PTX (hrf_driver.h)
void hrf_emulate_thread(int k, unsigned *out, unsigned *const *addrs);

// the runtime's calls the driver makes
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
struct cudaDeviceProp {
    char name[256];
    int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor, regsPerMultiprocessor;
};
struct cudaFuncAttributes {
    int numRegs;
};
inline cudaError_t cudaMalloc(void **p, size_t n) {
    *p = std::calloc(n ? n : 1, 1);
    return *p ? 0 : 2;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
    std::memcpy(d, s, n);
    return 0;
}
inline cudaError_t cudaMemset(void *p, int v, size_t n) {
    std::memset(p, v, n);
    return 0;
}
inline cudaError_t cudaFree(void *p) {
    std::free(p);
    return 0;
}
inline cudaError_t cudaDeviceSynchronize() { return 0; }
inline cudaError_t cudaGetLastError() { return 0; }
inline const char *cudaGetErrorString(cudaError_t) { return "out of memory (emulated)"; }
// a small made-up device: 2 SMs of 2048 threads and 65,536 registers
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int) {
    std::snprintf(p->name, sizeof p->name, "hrf CPU emulation");
    p->major = 0, p->minor = 0, p->multiProcessorCount = 2;
    p->maxThreadsPerMultiProcessor = 2048, p->regsPerMultiprocessor = 65536;
    return 0;
}
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *) {
    a->numRegs = 32;
    return 0;
}
inline cudaError_t cudaDriverGetVersion(int *v) { return *v = 0, 0; }
inline cudaError_t cudaRuntimeGetVersion(int *v) { return *v = 0, 0; }

template <class F>
void hrf_emulate_launch(const char *kernel, unsigned grid, unsigned block, F f) {
    const bool test = !std::strcmp(kernel, "hrf_test");
    if (test) hrf_emulated_launches++;
    blockDim.x = block;
    for (unsigned b = 0; b < grid; b++)
        for (unsigned phase = 0; phase < (test ? hrf_test_phases : 1u); phase++)
            for (unsigned t = 0; t < block; t++) {
                blockIdx.x = b, threadIdx.x = t, hrf_emulated_phase = phase;
                f();
            }
}
#define HRF_LAUNCH(kernel, grid, block, ...) hrf_emulate_launch(#kernel, (grid), (block), [&] { kernel(__VA_ARGS__); })
#endif
