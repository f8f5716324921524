// Self-test of rokkos' CUDA emulator (tools/cuda-emu), run by build.sh after it builds the two
// stand-in libraries: small CUDA C kernels, compiled and launched through the same entry points
// rokkos-cuda calls, each with a known answer. It checks that the emulator computes what a GPU
// computes for well-formed kernels, and that it refuses, or shows in its results, what a GPU
// leaves undefined: a missing barrier, a shuffle naming an exited or missing lane, threads
// waiting at barriers that never release, memory nobody wrote.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef unsigned long long CUdeviceptr;
extern "C" {
int cuInit(unsigned);
int cuMemAlloc_v2(CUdeviceptr*, size_t);
int cuMemFree_v2(CUdeviceptr);
int cuMemcpyDtoH_v2(void*, CUdeviceptr, size_t);
int cuModuleLoadData(void**, const void*);
int cuModuleGetFunction(void**, void*, const char*);
int cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                   void**);
int nvrtcCreateProgram(void**, const char*, const char*, int, const char* const*, const char* const*);
int nvrtcCompileProgram(void*, int, const char* const*);
int nvrtcGetCUBINSize(void*, size_t*);
int nvrtcGetCUBIN(void*, char*);
int nvrtcDestroyProgram(void**);
}

static int failures = 0;

static void expect(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "cuda-emu selftest: FAILED: %s\n", what);
        failures++;
    }
}

// Every kernel takes one parameter block by value, as rokkos-cuda's entry points do.
static const char* PRELUDE = "struct P { unsigned* out; unsigned n; };\n";

// Compiles `body` (a kernel `k(const P p)`) and launches it on `blocks` blocks of `threads`
// threads over a fresh output of `n` words; returns the launch's result code and the output.
static int run(const char* body, unsigned blocks, unsigned threads, unsigned n, std::vector<unsigned>& out) {
    std::string src = std::string(PRELUDE) + body;
    void* prog = nullptr;
    if (nvrtcCreateProgram(&prog, src.c_str(), "selftest.cu", 0, nullptr, nullptr) != 0) return -1;
    if (nvrtcCompileProgram(prog, 0, nullptr) != 0) return -1;
    size_t size = 0;
    nvrtcGetCUBINSize(prog, &size);
    std::vector<char> image(size);
    nvrtcGetCUBIN(prog, image.data());
    nvrtcDestroyProgram(&prog);
    void* module = nullptr;
    void* fn = nullptr;
    if (cuModuleLoadData(&module, image.data()) != 0) return -1;
    if (cuModuleGetFunction(&fn, module, "k") != 0) return -1;
    CUdeviceptr d = 0;
    cuMemAlloc_v2(&d, n * sizeof(unsigned));
    struct {
        unsigned* out;
        unsigned n;
    } p = {(unsigned*)d, n};
    void* params[] = {&p};
    int rc = cuLaunchKernel(fn, blocks, 1, 1, threads, 1, 1, 0, nullptr, params, nullptr);
    out.assign(n, 0);
    cuMemcpyDtoH_v2(out.data(), d, n * sizeof(unsigned));
    cuMemFree_v2(d);
    return rc;
}

int main() {
    // The checks of missing barriers need the default schedule (both orders in one run).
    unsetenv("RKEMU_SCHEDULE");
    cuInit(0);
    std::vector<unsigned> out;

    // Fresh device memory is not zero.
    run(R"(extern "C" __global__ void k(const P p) {})", 1, 1, 4, out);
    expect(out[0] == 0xffffffffu && out[3] == 0xffffffffu, "fresh allocations hold the poison pattern");

    // A well-formed kernel: a barrier between a shared write and a neighbour's read.
    const char* rotate = R"(extern "C" __global__ void k(const P p) {
        __shared__ unsigned sh[64];
        unsigned t = threadIdx.x;
        sh[t] = t + 100u * blockIdx.x;
        __syncthreads();
        p.out[blockIdx.x * 64u + t] = sh[(t + 1u) % 64u];
    })";
    expect(run(rotate, 2, 64, 128, out) == 0, "the rotation launches");
    bool rotated = true;
    for (unsigned b = 0; b < 2; b++)
        for (unsigned t = 0; t < 64; t++) rotated &= out[b * 64 + t] == (t + 1) % 64 + 100 * b;
    expect(rotated, "threads read their neighbours' writes after a barrier");

    // The same without the barrier: one of the two blocks runs its threads last to first, so
    // some thread reads its neighbour's slot before the neighbour wrote it.
    std::string racy = rotate;
    racy.erase(racy.find("__syncthreads();"), std::strlen("__syncthreads();"));
    expect(run(racy.c_str(), 2, 64, 128, out) == 0, "the racy rotation launches");
    bool differs = false;
    for (unsigned b = 0; b < 2; b++)
        for (unsigned t = 0; t < 64; t++) differs |= out[b * 64 + t] != (t + 1) % 64 + 100 * b;
    expect(differs, "a missing barrier shows in the results");

    // A warp sum by shuffles.
    const char* warp_sum = R"(extern "C" __global__ void k(const P p) {
        unsigned v = threadIdx.x + 1u;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0u) p.out[0] = v;
    })";
    expect(run(warp_sum, 1, 32, 1, out) == 0 && out[0] == 528u, "a warp's shuffle sum is 1 + ... + 32");

    // Shuffles a GPU leaves undefined fail the launch.
    const char* exited = R"(extern "C" __global__ void k(const P p) {
        if (threadIdx.x >= 16u) return;
        p.out[threadIdx.x] = __shfl_down_sync(0xffffffffu, threadIdx.x, 1);
    })";
    expect(run(exited, 1, 32, 16, out) != 0, "a shuffle naming an exited lane fails");
    expect(run(warp_sum, 1, 20, 1, out) != 0, "a full-mask shuffle in a 20-thread block fails");
    const char* segment = R"(extern "C" __global__ void k(const P p) {
        unsigned m = 0xffu << (threadIdx.x & ~7u);
        unsigned v = threadIdx.x;
        for (int o = 4; o > 0; o >>= 1) v += __shfl_xor_sync(m, v, o, 8);
        p.out[threadIdx.x] = v;
    })";
    expect(run(segment, 1, 32, 32, out) == 0, "shuffles within 8-lane segments launch");
    bool sums = true;
    for (unsigned t = 0; t < 32; t++) sums &= out[t] == 8 * (t & ~7u) + 28;
    expect(sums, "each 8-lane segment sums its own lanes");

    // Threads waiting at different barriers never release: the launch fails.
    const char* deadlock = R"(extern "C" __global__ void k(const P p) {
        if (threadIdx.x % 2u == 0u) { __syncthreads(); }
        else { p.out[0] = __shfl_sync(0xffffffffu, threadIdx.x, 0); }
    })";
    expect(run(deadlock, 1, 32, 1, out) != 0, "threads at different barriers fail the launch");

    if (failures) {
        std::fprintf(stderr, "cuda-emu selftest: %d check(s) failed\n", failures);
        return 1;
    }
    std::printf("cuda-emu selftest: every check passed\n");
    return 0;
}
