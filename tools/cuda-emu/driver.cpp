// libcuda stand-in of rokkos' CUDA emulator (tools/cuda-emu): the part of the CUDA driver API
// that rokkos-cuda and cudarc call, on host memory. "Device" pointers are host addresses; every
// operation completes before its call returns (streams and events are trivially in order); a
// module is a shared object the NVRTC stand-in compiled from the kernel's CUDA C; a launch runs
// its blocks one after another on the calling thread, each block's threads as cooperative
// fibers that switch at `__syncthreads` and warp shuffles.
#include <dlfcn.h>
#if !defined(__x86_64__) || defined(RKEMU_UCONTEXT)
#include <ucontext.h>
#endif
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "rkemu.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
enum {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NOT_FOUND = 500,
    INVALID_IMAGE = 200,
    LAUNCH_FAILED = 719,
    NOT_SUPPORTED = 801,
};

// The emulated device: an H100's limits with 2 SMs (grids sized from the SM count stay small).
static const int SM_COUNT = 2;
static const size_t TOTAL_MEMORY = 16ull << 30;

struct Function {
    void (*entry)(void**);
    std::string name;
    int max_dynamic_shared = 48 * 1024;
};
struct Module {
    void* so;
    std::map<std::string, Function*> functions;
};

static int ctx_token, stream_token, event_token;

extern "C" {

CUresult cuDriverGetVersion(int* v) {
    *v = 13000;
    return OK;
}
CUresult cuInit(unsigned) { return OK; }
CUresult cuDeviceGetCount(int* n) {
    *n = 1;
    return OK;
}
CUresult cuDeviceGet(int* d, int ordinal) {
    if (ordinal != 0) return 101;  // CUDA_ERROR_INVALID_DEVICE
    *d = 0;
    return OK;
}
CUresult cuDeviceGetName(char* name, int len, int) {
    std::snprintf(name, (size_t)len, "rokkos CUDA emulator (host)");
    return OK;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int) {
    *bytes = TOTAL_MEMORY;
    return OK;
}
CUresult cuDeviceGetAttribute(int* v, int attr, int) {
    switch (attr) {
        case 1: *v = 1024; break;                 // max threads per block
        case 2: case 3: *v = 1024; break;         // block dims
        case 4: *v = 64; break;
        case 5: *v = 2147483647; break;           // grid dims
        case 6: case 7: *v = 65535; break;
        case 8: *v = 48 * 1024; break;            // shared per block
        case 9: *v = 64 * 1024; break;
        case 10: *v = 32; break;                  // warp size
        case 12: *v = 65536; break;
        case 13: *v = 1755000; break;
        case 16: *v = SM_COUNT; break;
        case 19: case 41: *v = 1; break;
        case 36: *v = 2619000; break;
        case 38: *v = 50 * 1024 * 1024; break;
        case 39: *v = 2048; break;                // threads per SM
        case 75: *v = 9; break;                   // compute capability 9.0
        case 76: *v = 0; break;
        case 81: *v = 228 * 1024; break;
        case 97: *v = 227 * 1024; break;          // opt-in shared per block
        case 106: *v = 32; break;
        case 115: *v = 1; break;                  // memory pools
        default: *v = 0; break;
    }
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) {
    *ctx = &ctx_token;
    return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return OK; }
CUresult cuDevicePrimaryCtxReset_v2(int) { return OK; }
CUresult cuCtxSetCurrent(void*) { return OK; }
CUresult cuCtxGetCurrent(void** ctx) {
    *ctx = &ctx_token;
    return OK;
}
CUresult cuCtxPushCurrent_v2(void*) { return OK; }
CUresult cuCtxPopCurrent_v2(void** ctx) {
    if (ctx) *ctx = &ctx_token;
    return OK;
}
CUresult cuCtxGetDevice(int* d) {
    *d = 0;
    return OK;
}
CUresult cuCtxSynchronize() { return OK; }
CUresult cuCtxGetStreamPriorityRange(int* lo, int* hi) {
    if (lo) *lo = 0;
    if (hi) *hi = 0;
    return OK;
}

CUresult cuStreamCreate(void** s, unsigned) {
    *s = &stream_token;
    return OK;
}
CUresult cuStreamCreateWithPriority(void** s, unsigned, int) {
    *s = &stream_token;
    return OK;
}
CUresult cuStreamDestroy_v2(void*) { return OK; }
CUresult cuStreamSynchronize(void*) { return OK; }
CUresult cuStreamQuery(void*) { return OK; }
CUresult cuStreamWaitEvent(void*, void*, unsigned) { return OK; }
CUresult cuEventCreate(void** e, unsigned) {
    *e = &event_token;
    return OK;
}
CUresult cuEventDestroy_v2(void*) { return OK; }
CUresult cuEventRecord(void*, void*) { return OK; }
CUresult cuEventRecordWithFlags(void*, void*, unsigned) { return OK; }
CUresult cuEventSynchronize(void*) { return OK; }
CUresult cuEventQuery(void*) { return OK; }
CUresult cuEventElapsedTime(float* ms, void*, void*) {
    *ms = 0.0f;
    return OK;
}
CUresult cuEventElapsedTime_v2(float* ms, void*, void*) {
    *ms = 0.0f;
    return OK;
}

// Memory: 256-byte aligned, as the driver's allocations are.
static CUresult alloc(void** p, size_t n) {
    if (n > TOTAL_MEMORY) return OUT_OF_MEMORY;
    // Rounded up to the driver's 256-byte granularity and no further, so that a run under
    // AddressSanitizer (README.md) catches an access past the rounded end.
    size_t bytes = (n + 255) / 256 * 256;
    if (bytes == 0) bytes = 256;
    void* q = std::aligned_alloc(256, bytes);
    if (!q) return OUT_OF_MEMORY;
    // A GPU's fresh allocations hold whatever was there before; the host's large ones would be
    // zero pages, hiding a read of memory nobody wrote. NaN for floats, all ones for integers.
    std::memset(q, 0xff, bytes);
    *p = q;
    return OK;
}
CUresult cuMemAlloc_v2(CUdeviceptr* d, size_t n) { return alloc((void**)d, n); }
CUresult cuMemAllocAsync(CUdeviceptr* d, size_t n, void*) { return alloc((void**)d, n); }
CUresult cuMemFree_v2(CUdeviceptr d) {
    std::free((void*)d);
    return OK;
}
CUresult cuMemFreeAsync(CUdeviceptr d, void*) { return cuMemFree_v2(d); }
CUresult cuMemHostAlloc(void** p, size_t n, unsigned) { return alloc(p, n); }
CUresult cuMemAllocHost_v2(void** p, size_t n) { return alloc(p, n); }
CUresult cuMemFreeHost(void* p) {
    std::free(p);
    return OK;
}
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* d, void* p, unsigned) {
    *d = (CUdeviceptr)p;
    return OK;
}
CUresult cuMemGetInfo_v2(size_t* free_b, size_t* total) {
    *free_b = TOTAL_MEMORY;
    *total = TOTAL_MEMORY;
    return OK;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void* s, size_t n) {
    std::memmove((void*)d, s, n);
    return OK;
}
CUresult cuMemcpyDtoH_v2(void* d, CUdeviceptr s, size_t n) {
    std::memmove(d, (const void*)s, n);
    return OK;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) {
    std::memmove((void*)d, (const void*)s, n);
    return OK;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t n, void*) { return cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t n, void*) { return cuMemcpyDtoH_v2(d, s, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void*) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void*) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) {
    std::memset((void*)d, v, n);
    return OK;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void*) { return cuMemsetD8_v2(d, v, n); }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n) {
    for (size_t i = 0; i < n; i++) ((unsigned*)d)[i] = v;
    return OK;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, void*) { return cuMemsetD32_v2(d, v, n); }

// Modules: the image is the NVRTC stand-in's line "rokkos-cuda-emu <path of the host C++>",
// built here with the host C++ compiler (RKEMU_CXX, default g++) into a shared object beside it,
// once (the file's name is its content's hash).
static std::string here() {
    Dl_info info;
    dladdr((void*)&here, &info);
    std::string p = info.dli_fname ? info.dli_fname : "";
    size_t slash = p.rfind('/');
    return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
}

static std::string build(const std::string& cpp) {
    // Named by the header's hash too: a changed emulator rebuilds every kernel.
    static const std::string header_hash = [] {
        std::string h;
        if (FILE* f = std::fopen((here() + "/rkemu.h").c_str(), "r")) {
            char b[4096];
            size_t k;
            while ((k = std::fread(b, 1, sizeof b, f)) > 0) h.append(b, k);
            std::fclose(f);
        }
        char x[32];
        std::snprintf(x, sizeof x, "%016zx", std::hash<std::string>{}(h));
        return std::string(x);
    }();
    std::string so = cpp.substr(0, cpp.size() - 4) + "-" + header_hash + ".so";
    if (access(so.c_str(), R_OK) == 0) return so;
    std::string part = so + "." + std::to_string(getpid()) + "." + std::to_string((size_t)&cpp);
    const char* cxx = std::getenv("RKEMU_CXX");
    std::string cmd = std::string(cxx && *cxx ? cxx : "g++") + " -std=c++17 -O1 -fPIC -shared -w -include '" +
                      here() + "/rkemu.h' -o '" + part + "' '" + cpp + "' 2>&1";
    std::string log;
    if (FILE* pipe = popen(cmd.c_str(), "r")) {
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) log.append(buf, n);
        if (pclose(pipe) == 0 && std::rename(part.c_str(), so.c_str()) == 0) return so;
    }
    std::remove(part.c_str());
    std::fprintf(stderr, "rokkos-cuda-emu: %s failed:\n%s\n", cmd.c_str(), log.c_str());
    return "";
}

static std::mutex build_lock;

// RKEMU_LAUNCH=noop: launches return at once without running anything, and modules of any image
// (PTX too) load, their functions doing nothing: what is left is the host's own cost of
// launching, rokkos' and a raw cudarc program's alike (the launch_cost example's --host-only).
static bool noop_launches() {
    static const bool noop = [] {
        const char* s = std::getenv("RKEMU_LAUNCH");
        return s && std::strcmp(s, "noop") == 0;
    }();
    return noop;
}

CUresult cuModuleLoadData(Module** m, const void* image) {
    const char* s = (const char*)image;
    const char* tag = "rokkos-cuda-emu ";
    if (std::strncmp(s, tag, std::strlen(tag)) != 0) {
        if (!noop_launches()) return INVALID_IMAGE;
        *m = new Module{nullptr, {}};
        return OK;
    }
    std::string cpp(s + std::strlen(tag));
    while (!cpp.empty() && (cpp.back() == '\n' || cpp.back() == '\0')) cpp.pop_back();
    std::string so;
    {
        std::lock_guard<std::mutex> g(build_lock);
        so = build(cpp);
    }
    if (so.empty()) return INVALID_IMAGE;
    void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        std::fprintf(stderr, "rokkos-cuda-emu: %s\n", dlerror());
        return INVALID_IMAGE;
    }
    extern const rkemu_ops rkemu_driver_ops;
    auto bind = (void (*)(const rkemu_ops*))dlsym(lib, "rkemu_bind");
    if (!bind) return INVALID_IMAGE;
    bind(&rkemu_driver_ops);
    *m = new Module{lib, {}};
    return OK;
}
CUresult cuModuleLoadDataEx(Module** m, const void* image, unsigned, void*, void**) { return cuModuleLoadData(m, image); }
CUresult cuModuleUnload(Module* m) {
    for (auto& f : m->functions) delete f.second;
    if (m->so) dlclose(m->so);
    delete m;
    return OK;
}
CUresult cuModuleGetFunction(Function** f, Module* m, const char* name) {
    auto it = m->functions.find(name);
    if (it != m->functions.end()) {
        *f = it->second;
        return OK;
    }
    auto entry = m->so ? (void (*)(void**))dlsym(m->so, (std::string("rkemu_k_") + name).c_str()) : nullptr;
    if (!entry && m->so) return NOT_FOUND;
    Function* fn = new Function{entry, name};
    m->functions[name] = fn;
    *f = fn;
    return OK;
}
CUresult cuFuncSetAttribute(Function* f, int attr, int v) {
    if (attr == 8) f->max_dynamic_shared = v;
    return OK;
}
CUresult cuFuncGetAttribute(int* v, int attr, Function* f) {
    switch (attr) {
        case 0: *v = 1024; break;
        case 4: *v = 32; break;
        case 8: *v = f->max_dynamic_shared; break;
        case 5: case 6: *v = 90; break;
        default: *v = 0;
    }
    return OK;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, Function*, int block, size_t) {
    *n = block > 0 ? (2048 / block < 32 ? 2048 / block : 32) : 1;
    if (*n < 1) *n = 1;
    return OK;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, Function* f, int block, size_t shm, unsigned) {
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, shm);
}

// The real NVRTC asks libcuda for its private tables when it builds a CUBIN: there are none.
CUresult cuGetExportTable(const void** table, const void*) {
    if (table) *table = nullptr;
    return NOT_SUPPORTED;
}

CUresult cuGetErrorName(CUresult e, const char** s) {
    static char buf[64];
    std::snprintf(buf, sizeof buf, "CUDA_ERROR_%d", e);
    *s = e == OK ? "CUDA_SUCCESS" : buf;
    return OK;
}
CUresult cuGetErrorString(CUresult e, const char** s) {
    *s = e == LAUNCH_FAILED ? "a kernel deadlocked or misused a warp shuffle in the emulator (its message on stderr says which)"
                            : "error in rokkos' CUDA emulator";
    return OK;
}

}  // extern "C"

// ---- fibers ----

namespace {

const size_t STACK = 256 * 1024;

// A suspended fiber (or the scheduler): where to resume it. Every barrier or shuffle switches
// each thread of the block out and back in, so the switch is the emulator's inner loop. glibc's
// swapcontext saves and restores the signal mask with a system call on each switch: that was
// 70% of the time of a CI test made of small reductions (containers' Bitset). On x86-64 the
// switch below saves only the callee-saved registers the ABI requires and swaps stacks; the
// x87 and MXCSR control words, callee-saved too, are left alone because kernels never change
// them (every fiber and the scheduler run with the launching thread's). Elsewhere, or built
// with -DRKEMU_UCONTEXT, ucontext.
#if defined(__x86_64__) && !defined(RKEMU_UCONTEXT)
struct Context {
    void* sp = nullptr;
};

extern "C" void rkemu_switch(void** save_sp, void* load_sp);
asm(R"(
    .text
    .p2align 4
    .type rkemu_switch, @function
rkemu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size rkemu_switch, .-rkemu_switch
)");

void switch_to(Context& from, Context& to) { rkemu_switch(&from.sp, to.sp); }

// A context that, switched to, calls `entry` on `stack` (which must not return): the six
// registers rkemu_switch pops, then `entry` as its return address, so that `entry` starts with
// the stack aligned as after a call (rsp + 8 a multiple of 16), and a null return address above
// it, which ends a debugger's backtrace.
void start(Context& c, char* stack, size_t size, void (*entry)()) {
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    void** sp = (void**)(top - 8 * sizeof(void*));
    for (int k = 0; k < 6; k++) sp[k] = nullptr;
    sp[6] = (void*)entry;
    sp[7] = nullptr;
    c.sp = sp;
}
#else
struct Context {
    ucontext_t uc;
};

void switch_to(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }

void start(Context& c, char* stack, size_t size, void (*entry)()) {
    getcontext(&c.uc);
    c.uc.uc_stack.ss_sp = stack;
    c.uc.uc_stack.ss_size = size;
    c.uc.uc_link = nullptr;
    makecontext(&c.uc, entry, 0);
}
#endif

// ---- the block scheduler ----

enum State { READY, AT_SYNC, AT_WARP, DONE };

struct Fiber {
    Context resume;
    rkemu_ctx ctx;
    State state;
    unsigned mask;  // at a warp barrier: the lanes it waits for
};

struct Block {
    std::vector<Fiber> fibers;
    std::vector<char*> stacks;
    std::vector<unsigned long long> slots;  // one per thread: shuffle exchange
    Context sched;
    Fiber* cur = nullptr;
    unsigned cur_index = 0;
    void (*entry)(void**) = nullptr;
    void** params = nullptr;
    unsigned parity = 0;  // the block's linear index: where the alternate schedule starts
};

thread_local Block* tl_block;
// Fiber stacks, reused by a thread's launches and freed when it ends.
struct Stacks {
    std::vector<char*> v;
    ~Stacks() {
        for (char* p : v) std::free(p);
    }
};
thread_local Stacks tl_stacks;

rkemu_ctx* op_cur() { return &tl_block->cur->ctx; }

void yield(State s) {
    Block* b = tl_block;
    b->cur->state = s;
    switch_to(b->cur->resume, b->sched);
}

void op_sync() { yield(AT_SYNC); }

unsigned op_lane() { return tl_block->cur_index % 32; }

unsigned long long op_shfl(unsigned long long v, int src, unsigned mask) {
    Block* b = tl_block;
    unsigned me = b->cur_index;
    unsigned warp0 = me / 32 * 32;
    b->slots[me] = v;
    b->cur->mask = mask;
    yield(AT_WARP);
    unsigned long long r = v;
    if (src >= 0 && warp0 + (unsigned)src < b->fibers.size()) r = b->slots[warp0 + (unsigned)src];
    b->cur->mask = mask;
    yield(AT_WARP);
    return r;
}

// A fiber's whole life: it never returns, and is never resumed once DONE.
void fiber_main() {
    Block* b = tl_block;
    b->entry(b->params);
    b->cur->state = DONE;
    switch_to(b->cur->resume, b->sched);
    std::abort();
}

std::string hex(unsigned m) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08x", m);
    return b;
}

// Runs one block; false, with `error` saying why, on a deadlock or a misused warp intrinsic.
bool run_block(Block& b, std::string& error) {
    size_t n = b.fibers.size();
    for (size_t i = 0; i < n; i++) {
        Fiber& f = b.fibers[i];
        start(f.resume, b.stacks[i], STACK, fiber_main);
        f.state = READY;
    }
    // The order in which the threads between two barriers run: a read of another thread's write
    // that misses a barrier sees a different value in one of the two orders. RKEMU_SCHEDULE=
    // forward or reverse fixes it; the default, alternate, flips it from one block and one
    // barrier round to the next, so that one run tries both orders.
    static const int schedule = [] {
        const char* s = std::getenv("RKEMU_SCHEDULE");
        if (s && std::strcmp(s, "forward") == 0) return 0;
        if (s && std::strcmp(s, "reverse") == 0) return 1;
        return 2;
    }();
    unsigned round = b.parity;
    for (;;) {
        bool ran = false;
        bool reverse = schedule == 2 ? (round++ & 1) != 0 : schedule == 1;
        for (size_t k = 0; k < n; k++) {
            size_t i = reverse ? n - 1 - k : k;
            if (b.fibers[i].state != READY) continue;
            b.cur = &b.fibers[i];
            b.cur_index = (unsigned)i;
            switch_to(b.sched, b.fibers[i].resume);
            ran = true;
        }
        size_t live = 0, at_sync = 0;
        for (auto& f : b.fibers) {
            if (f.state != DONE) live++;
            if (f.state == AT_SYNC) at_sync++;
        }
        if (live == 0) return true;
        bool released = false;
        // A warp barrier is passed when every lane of the warp in the mask waits at one. As on a
        // GPU, where the result is undefined otherwise, every lane a mask names must exist, not
        // have exited, and call with the same mask, which must name the caller: the launch
        // fails, saying which lane broke which rule, rather than hand back a value a GPU might
        // not.
        for (size_t w = 0; w < n; w += 32) {
            bool any = false, all = true;
            for (size_t l = w; l < n && l < w + 32; l++) {
                Fiber& f = b.fibers[l];
                if (f.state != AT_WARP) continue;
                any = true;
                for (size_t k = w; k < w + 32; k++) {
                    if (!(f.mask >> (k - w) & 1u)) continue;
                    if (k >= n) {
                        error = "thread " + std::to_string(l) + " shuffles with mask " + hex(f.mask) + ", which names lane " +
                                std::to_string(k - w) + " of a warp the block (" + std::to_string(n) +
                                " threads) does not fill";
                        return false;
                    }
                    Fiber& g = b.fibers[k];
                    if (g.state == DONE) {
                        error = "thread " + std::to_string(l) + " shuffles with mask " + hex(f.mask) + ", which names thread " +
                                std::to_string(k) + ", which has exited";
                        return false;
                    }
                    if (g.state != AT_WARP) all = false;
                    else if (g.mask != f.mask) {
                        error = "threads " + std::to_string(l) + " and " + std::to_string(k) + " shuffle with masks " +
                                hex(f.mask) + " and " + hex(g.mask);
                        return false;
                    }
                }
                if (!(f.mask >> (l - w) & 1u)) {
                    error = "thread " + std::to_string(l) + " shuffles with mask " + hex(f.mask) + ", which leaves it out";
                    return false;
                }
            }
            if (any && all) {
                for (size_t l = w; l < n && l < w + 32; l++)
                    if (b.fibers[l].state == AT_WARP) b.fibers[l].state = READY;
                released = true;
            }
        }
        if (!released && at_sync == live) {
            for (auto& f : b.fibers)
                if (f.state == AT_SYNC) f.state = READY;
            released = true;
        }
        bool ready = false;
        for (auto& f : b.fibers) ready |= f.state == READY;
        if (!released && (!ran || !ready)) {
            error = "threads wait at barriers that can never be released (" + std::to_string(at_sync) + " of " +
                    std::to_string(live) + " live threads at __syncthreads, the others at warp shuffles)";
            return false;
        }
    }
}

}  // namespace

extern "C" const rkemu_ops rkemu_driver_ops = {op_cur, op_sync, op_shfl, op_lane};

extern "C" CUresult cuLaunchKernel(Function* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, void*, void** params, void**) {
    size_t threads = (size_t)bx * by * bz;
    if (threads == 0 || threads > 1024 || gx == 0 || gy == 0 || gz == 0) return INVALID_VALUE;
    if (shared > (unsigned)f->max_dynamic_shared && shared > 48 * 1024) return INVALID_VALUE;
    if (noop_launches()) return OK;
    Block b;
    b.entry = f->entry;
    b.params = params;
    b.fibers.resize(threads);
    b.slots.assign(threads, 0);
    while (tl_stacks.v.size() < threads) tl_stacks.v.push_back((char*)std::malloc(STACK));
    b.stacks.assign(tl_stacks.v.begin(), tl_stacks.v.begin() + (long)threads);
    std::vector<unsigned char> dyn((size_t)shared + 16);
    Block* saved = tl_block;
    tl_block = &b;
    CUresult rc = OK;
    for (unsigned z = 0; z < gz && rc == OK; z++)
        for (unsigned y = 0; y < gy && rc == OK; y++)
            for (unsigned x = 0; x < gx && rc == OK; x++) {
                for (size_t i = 0; i < threads; i++) {
                    rkemu_ctx& c = b.fibers[i].ctx;
                    c.tid = dim3{(unsigned)(i % bx), (unsigned)(i / bx % by), (unsigned)(i / bx / by)};
                    c.bid = dim3{x, y, z};
                    c.bdim = dim3{bx, by, bz};
                    c.gdim = dim3{gx, gy, gz};
                    c.dyn = dyn.data();
                }
                b.parity = x + y + z;
                // Shared memory is not initialised on a GPU: a kernel that reads its dynamic
                // shared memory before writing it reads these bytes, not zeros.
                std::memset(dyn.data(), 0xff, dyn.size());
                std::string error;
                if (!run_block(b, error)) {
                    std::fprintf(stderr, "rokkos-cuda-emu: kernel %s, block (%u, %u, %u) of (%u, %u, %u) x (%u, %u, %u): %s\n",
                                 f->name.c_str(), x, y, z, gx, gy, gz, bx, by, bz, error.c_str());
                    rc = LAUNCH_FAILED;
                }
            }
    tl_block = saved;
    return rc;
}
