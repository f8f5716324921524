// Hand-written CUDA yAx (result = y^T A x), the reference of examples/yax.rs in `run.sh speed`:
// the same matrix, vectors and check (small integers, so the result is exact in f64 whatever the
// order of the additions), one block per row (threads stride over the columns, a warp-shuffle and
// shared-memory tree, one atomicAdd per row), each repetition a blocking reduction to a host
// scalar (memset, launch, copy back), timed on the host as the rokkos program times its
// parallel_reduce. Prints one JSON line in examples/yax.rs's format; exit 1 on a wrong result.
//   nvcc -O3 -arch=sm_90 yax.cu -o yax_ref && ./yax_ref [rows] [cols] [reps]
// With -DKERNELS_ONLY only the kernels remain (what scripts/check_cuda.sh compiles with NVRTC).
#ifndef KERNELS_ONLY
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#endif

extern "C" __global__ void yax_init(double* a, double* x, double* y, unsigned long long rows,
                                    unsigned long long cols) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long k = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       k < rows * cols; k += stride) {
    unsigned long long j = k / cols, i = k % cols;
    a[k] = (double)((i + 3 * j) % 7);
    if (j == 0) x[i] = (double)(i % 5);
    if (i == 0) y[j] = (double)(j % 3);
  }
}

// Block j: y[j] * sum_i A[j][i] x[i], added to *out.
extern "C" __global__ void yax_rows(const double* __restrict__ a, const double* __restrict__ x,
                                    const double* __restrict__ y, double* out,
                                    unsigned long long cols) {
  const double* row = a + blockIdx.x * cols;
  double t = 0.0;
  for (unsigned long long i = threadIdx.x; i < cols; i += blockDim.x) t += row[i] * x[i];
  for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
  __shared__ double warps[32];
  unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warps[warp] = t;
  __syncthreads();
  if (warp == 0) {
    t = lane < blockDim.x / 32 ? warps[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
    if (lane == 0) atomicAdd(out, y[blockIdx.x] * t);
  }
}

#ifndef KERNELS_ONLY
#define CK(x)                                                                      \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      fprintf(stderr, "yax_ref: CUDA %s at line %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static unsigned long long arg(int argc, char** argv, int k, unsigned long long dflt) {
  return argc > k ? strtoull(argv[k], 0, 10) : dflt;
}

int main(int argc, char** argv) {
  unsigned long long rows = arg(argc, argv, 1, 1ull << 14), cols = arg(argc, argv, 2, 1ull << 14);
  int reps = (int)arg(argc, argv, 3, 20);
  if (rows == 0 || cols == 0 || reps < 2 || (double)rows * (double)cols * 48.0 >= 9007199254740992.0) {
    fprintf(stderr, "usage: yax_ref [rows] [cols] [reps >= 2] (rows*cols*48 < 2^53)\n");
    return 2;
  }
  double *a, *x, *y, *out;
  CK(cudaMalloc(&a, rows * cols * sizeof(double)));
  CK(cudaMalloc(&x, cols * sizeof(double)));
  CK(cudaMalloc(&y, rows * sizeof(double)));
  CK(cudaMalloc(&out, sizeof(double)));
  yax_init<<<4096, 256>>>(a, x, y, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> secs;
  double result = 0.0;
  for (int r = 0; r < reps; r++) {
    auto t0 = std::chrono::steady_clock::now();
    CK(cudaMemsetAsync(out, 0, sizeof(double)));
    yax_rows<<<(unsigned)rows, 256>>>(a, x, y, out, cols);
    CK(cudaMemcpy(&result, out, sizeof(double), cudaMemcpyDeviceToHost));
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  CK(cudaGetLastError());
  // The independent expectation: a host loop over the same formulas.
  std::vector<double> xh(cols);
  for (unsigned long long i = 0; i < cols; i++) xh[i] = (double)(i % 5);
  double want = 0.0;
  for (unsigned long long j = 0; j < rows; j++) {
    double s = 0.0;
    for (unsigned long long i = 0; i < cols; i++) s += (double)((i + 3 * j) % 7) * xh[i];
    want += (double)(j % 3) * s;
  }
  // As the rokkos program: the first repetition (warm-up) is left out.
  secs.erase(secs.begin());
  std::sort(secs.begin(), secs.end());
  double best = secs[0], median = secs[secs.size() / 2];
  double bytes = 8.0 * ((double)rows * cols + rows + cols);
  printf("{\"bench\":\"yax\",\"backend\":\"cuda-c\",\"rows\":%llu,\"cols\":%llu,\"reps\":%d,"
         "\"best_s\":%.9g,\"median_s\":%.9g,\"metric\":\"GB/s\",\"value\":%.6g,\"result\":%.17g,"
         "\"expected\":%.17g,\"correct\":%s}\n",
         rows, cols, reps, best, median, bytes / best / 1e9, result, want,
         result == want ? "true" : "false");
  cudaFree(a);
  cudaFree(x);
  cudaFree(y);
  cudaFree(out);
  if (result != want) {
    fprintf(stderr, "yax_ref: result %.17g differs from the host loop's %.17g\n", result, want);
    return 1;
  }
  return 0;
}
#endif
