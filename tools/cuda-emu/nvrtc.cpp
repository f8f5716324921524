// libnvrtc stand-in of rokkos' CUDA emulator (tools/cuda-emu). It rewrites a kernel's CUDA C
// into host C++ (the few constructs a host compiler cannot read: dynamic shared memory, the
// entry points' parameter blocks), writes it to RKEMU_DIR, and hands out, as the compiled
// image, the line "rokkos-cuda-emu <path of that file>", which the driver stand-in builds with
// the host C++ compiler and loads at `cuModuleLoadData`.
//
// With RKEMU_NVRTC naming the real NVRTC library, every program is also compiled by it, with
// its options: its errors and log are the result, and PTX requests get its PTX (so NVRTC and
// ptxas checks run as without the emulator, in the same process). CUBIN requests, which rokkos
// makes only to load a module, get the emulator's image.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <regex>
#include <string>

typedef int nvrtcResult;
enum { OK = 0, OUT_OF_MEMORY = 1, INVALID_INPUT = 3, INVALID_PROGRAM = 4, COMPILATION = 6 };

namespace {

struct Real {
    void* lib = nullptr;
    nvrtcResult (*version)(int*, int*);
    nvrtcResult (*create)(void**, const char*, const char*, int, const char* const*, const char* const*);
    nvrtcResult (*destroy)(void**);
    nvrtcResult (*compile)(void*, int, const char* const*);
    nvrtcResult (*log_size)(void*, size_t*);
    nvrtcResult (*log)(void*, char*);
    nvrtcResult (*ptx_size)(void*, size_t*);
    nvrtcResult (*ptx)(void*, char*);
    const char* (*error_string)(nvrtcResult);
};

const Real* real() {
    static const Real r = [] {
        Real r;
        const char* path = std::getenv("RKEMU_NVRTC");
        if (!path || !*path) return r;
        r.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!r.lib) {
            std::fprintf(stderr, "rokkos-cuda-emu: RKEMU_NVRTC: %s\n", dlerror());
            std::abort();
        }
        auto sym = [&](const char* n) {
            void* f = dlsym(r.lib, n);
            if (!f) {
                std::fprintf(stderr, "rokkos-cuda-emu: %s lacks %s\n", path, n);
                std::abort();
            }
            return f;
        };
        r.version = (decltype(r.version))sym("nvrtcVersion");
        r.create = (decltype(r.create))sym("nvrtcCreateProgram");
        r.destroy = (decltype(r.destroy))sym("nvrtcDestroyProgram");
        r.compile = (decltype(r.compile))sym("nvrtcCompileProgram");
        r.log_size = (decltype(r.log_size))sym("nvrtcGetProgramLogSize");
        r.log = (decltype(r.log))sym("nvrtcGetProgramLog");
        r.ptx_size = (decltype(r.ptx_size))sym("nvrtcGetPTXSize");
        r.ptx = (decltype(r.ptx))sym("nvrtcGetPTX");
        r.error_string = (decltype(r.error_string))sym("nvrtcGetErrorString");
        return r;
    }();
    return r.lib ? &r : nullptr;
}

struct Program {
    std::string src, image;
    void* real = nullptr;
};

std::string rewrite(const std::string& src) {
    // `extern __shared__ __align__(16) unsigned char NAME[];`: the launch's dynamic shared memory.
    std::string s = std::regex_replace(
        src, std::regex(R"(extern\s+__shared__\s+__align__\(\d+\)\s+unsigned\s+char\s+(\w+)\[\];)"),
        "#define $1 (rkemu_dyn())");
    std::string out = s + "\nextern \"C\" {\nconst rkemu_ops* rkemu_o;\nvoid rkemu_bind(const rkemu_ops* o) { rkemu_o = o; }\n";
    // Every entry point takes its parameter block by value: a trampoline reads it from the
    // launch's parameter array.
    std::regex entry(R"(extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\s*\(\s*const\s+(\w+)\s+\w+\s*\))");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), entry); it != std::sregex_iterator(); ++it) {
        std::string name = (*it)[1], ty = (*it)[2];
        out += "void rkemu_k_" + name + "(void** a) { " + name + "(*(const " + ty + "*)a[0]); }\n";
    }
    out += "}\n";
    return out;
}

// Writes the host C++ of `src` once (named by its hash) and returns its path, or "" on failure.
std::string write_source(const std::string& src) {
    std::string code = rewrite(src);
    const char* d = std::getenv("RKEMU_DIR");
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = d && *d ? d : std::string(tmp && *tmp ? tmp : "/tmp") + "/rokkos-cuda-emu";
    mkdir(dir.c_str(), 0700);
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(code));
    std::string path = dir + "/k" + hash + ".cpp";
    if (access(path.c_str(), R_OK) == 0) return path;
    // Written under a unique name and renamed: processes writing the same kernel at once never
    // read a half-written file.
    std::string part = path + "." + std::to_string(getpid()) + "." + std::to_string((size_t)&code);
    FILE* f = std::fopen(part.c_str(), "w");
    if (!f) return "";
    bool ok = std::fputs(code.c_str(), f) >= 0;
    ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(part.c_str(), path.c_str()) != 0) {
        std::remove(part.c_str());
        return "";
    }
    return path;
}

}  // namespace

extern "C" {

nvrtcResult nvrtcVersion(int* major, int* minor) {
    if (const Real* r = real()) return r->version(major, minor);
    *major = 13;
    *minor = 0;
    return OK;
}
const char* nvrtcGetErrorString(nvrtcResult e) {
    if (const Real* r = real()) return r->error_string(e);
    return e == OK ? "NVRTC_SUCCESS" : "NVRTC_ERROR (rokkos CUDA emulator)";
}
nvrtcResult nvrtcCreateProgram(Program** p, const char* src, const char* name, int n, const char* const* headers,
                               const char* const* names) {
    if (!p || !src) return INVALID_INPUT;
    Program* q = new Program{src, "", nullptr};
    if (const Real* r = real()) {
        nvrtcResult e = r->create(&q->real, src, name, n, headers, names);
        if (e != OK) {
            delete q;
            return e;
        }
    }
    *p = q;
    return OK;
}
nvrtcResult nvrtcDestroyProgram(Program** p) {
    if (!p || !*p) return INVALID_PROGRAM;
    if (const Real* r = real()) r->destroy(&(*p)->real);
    delete *p;
    *p = nullptr;
    return OK;
}
nvrtcResult nvrtcCompileProgram(Program* p, int n, const char* const* opts) {
    if (const Real* r = real()) {
        nvrtcResult e = r->compile(p->real, n, opts);
        if (e != OK) return e;
    }
    std::string path = write_source(p->src);
    if (path.empty()) return OUT_OF_MEMORY;
    p->image = "rokkos-cuda-emu " + path + "\n";
    return OK;
}
nvrtcResult nvrtcGetProgramLogSize(Program* p, size_t* n) {
    if (const Real* r = real()) return r->log_size(p->real, n);
    *n = 1;
    return OK;
}
nvrtcResult nvrtcGetProgramLog(Program* p, char* out) {
    if (const Real* r = real()) return r->log(p->real, out);
    out[0] = 0;
    return OK;
}
// Without the real NVRTC there is no PTX to give: a PTX request (rokkos' compile checks, not its
// launches) fails rather than hand ptxas the emulator's image.
nvrtcResult nvrtcGetPTXSize(Program* p, size_t* n) {
    if (const Real* r = real()) return r->ptx_size(p->real, n);
    std::fprintf(stderr, "rokkos-cuda-emu: no PTX without the real NVRTC (set RKEMU_NVRTC)\n");
    return INVALID_INPUT;
}
nvrtcResult nvrtcGetPTX(Program* p, char* out) {
    if (const Real* r = real()) return r->ptx(p->real, out);
    return INVALID_INPUT;
}
nvrtcResult nvrtcGetCUBINSize(Program* p, size_t* n) {
    *n = p->image.size() + 1;
    return OK;
}
nvrtcResult nvrtcGetCUBIN(Program* p, char* out) {
    std::memcpy(out, p->image.c_str(), p->image.size() + 1);
    return OK;
}

}  // extern "C"
