// stream.cu at any n and precision: the fixed reference (../shared/reference/stream.cu, carried
// beside this file, never copied into the repository) is included as it is, its main renamed.
//   stream_n                 the reference's own main (f64 and f32 at 2^25, f64 at 2^28, launches)
//   stream_n f32|f64 N ...   the reference's run<T>(name, N) for each pair (same kernels, same
//                            100 timed repetitions, same output lines)
//   stream_n host f32|f64 N  the reference's kernels, launched as it launches them, but each timed
//                            on the host from the launch to cudaDeviceSynchronize (dot: memset,
//                            launch, copy of the sum to the host), the way rokkos' babelstream
//                            times a kernel followed by a fence; lines prefixed `host-timed`
// run.sh speed needs f32 at 2^28, which the reference's main does not run, and the host-timed
// figures, so that a ratio below the bar can be told apart from the cost of a host clock and a
// synchronisation, which the reference's CUDA events leave out (about 10 us a kernel, 4 % of an
// f64 triad at 2^25 on an H100).
// Build: nvcc -O3 -arch=sm_90 -I. stream_n.cu -o stream_n (stream.cu in the include path).
// The standard headers come first, so that renaming main cannot reach into them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <chrono>
#define main stream_cu_main
#include "stream.cu"
#undef main

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The reference's run<T> with host timing (see the header); same start values, grid and blocks.
template <class T> void host_timed(const char* name, size_t n) {
  T *a, *b, *c, *s;
  CK(cudaMalloc(&a, n * sizeof(T)));
  CK(cudaMalloc(&b, n * sizeof(T)));
  CK(cudaMalloc(&c, n * sizeof(T)));
  CK(cudaMalloc(&s, sizeof(T)));
  std::vector<T> h(n, (T)0.1);
  CK(cudaMemcpy(a, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  for (auto& x : h) x = (T)0.2;
  CK(cudaMemcpy(b, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  for (auto& x : h) x = (T)0.0;
  CK(cudaMemcpy(c, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  int bs = 1024;
  unsigned g = (n + bs - 1) / bs;
  int dev, sms;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int R = 100;
  std::vector<double> t[5];
  T sum = 0;
  for (int r = 0; r < R + 3; r++) {
    double t0 = now_s();
    copy_k<T><<<g, bs>>>(a, c, n);
    CK(cudaDeviceSynchronize());
    double t1 = now_s();
    mul_k<T><<<g, bs>>>(b, c, (T)0.4, n);
    CK(cudaDeviceSynchronize());
    double t2 = now_s();
    add_k<T><<<g, bs>>>(a, b, c, n);
    CK(cudaDeviceSynchronize());
    double t3 = now_s();
    triad_k<T><<<g, bs>>>(a, b, c, (T)0.4, n);
    CK(cudaDeviceSynchronize());
    double t4 = now_s();
    CK(cudaMemsetAsync(s, 0, sizeof(T)));
    dot_k<T><<<sms * 4, 1024>>>(a, b, s, n);
    CK(cudaMemcpy(&sum, s, sizeof(T), cudaMemcpyDeviceToHost));
    double t5 = now_s();
    if (r >= 3) {
      t[0].push_back(t1 - t0);
      t[1].push_back(t2 - t1);
      t[2].push_back(t3 - t2);
      t[3].push_back(t4 - t3);
      t[4].push_back(t5 - t4);
    }
  }
  CK(cudaGetLastError());
  const char* nm[5] = {"copy", "mul", "add", "triad", "dot"};
  int words[5] = {2, 2, 3, 3, 2};
  for (int k = 0; k < 5; k++) {
    std::sort(t[k].begin(), t[k].end());
    double bytes = (double)words[k] * n * sizeof(T);
    printf("host-timed %s %-6s n=%zu  best %.1f GB/s  median %.1f GB/s\n", name, nm[k], n,
           bytes / t[k][0] / 1e9, bytes / t[k][R / 2] / 1e9);
  }
  // Keeps the dot's result observable (and says it is sane: positive, finite).
  if (!(sum > 0)) printf("host-timed %s dot: unexpected sum %g\n", name, (double)sum);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(s);
}

int main(int argc, char** argv) {
  if (argc == 1) return stream_cu_main();
  bool host = strcmp(argv[1], "host") == 0;
  if (host) {
    argv++;
    argc--;
  }
  if (argc % 2 == 0) {
    fprintf(stderr, "usage: stream_n [host] [f32|f64 N]...\n");
    return 2;
  }
  for (int k = 1; k + 1 < argc; k += 2) {
    char* end = 0;
    unsigned long long n = strtoull(argv[k + 1], &end, 10);
    if (n == 0 || *end != 0) {
      fprintf(stderr, "stream_n: bad N `%s`\n", argv[k + 1]);
      return 2;
    }
    if (strcmp(argv[k], "f64") == 0) {
      host ? host_timed<double>("f64", (size_t)n) : run<double>("f64", (size_t)n);
    } else if (strcmp(argv[k], "f32") == 0) {
      host ? host_timed<float>("f32", (size_t)n) : run<float>("f32", (size_t)n);
    } else {
      fprintf(stderr, "stream_n: dtype must be f32 or f64, not `%s`\n", argv[k]);
      return 2;
    }
  }
  return 0;
}
