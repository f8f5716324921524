// examples/cg.rs as plain CUDA C, the reference of `run.sh speed`: conjugate gradients on the 2-D
// Poisson problem (5-point Laplacian, zero Dirichlet boundaries, matrix-free) with the same x*,
// right-hand side b = A x*, kernels (Ap, pAp, x/r update, rr, p update; the two dot products into
// device scalars that the update kernels read, nothing waited for inside a step), stopping rule
// (the host reads rr every 20 steps; stop when sqrt(rr / bb) < 1e-10 or at the step limit) and
// check (relative infinity-norm error against x* below 1e-6 once converged). A dot is a memset of
// its scalar and a grid-stride kernel (warp shuffles, one atomicAdd per block). Timed as cg.rs
// times it: from the first step to the fence after the last, divided by the steps taken.
// Prints one JSON line in cg.rs's `--json` format; exit 1 when not converged or wrong.
//   nvcc -O3 -arch=sm_90 cg.cu -o cg_ref && ./cg_ref [n] [iters]
// With -DKERNELS_ONLY only the kernels remain (what scripts/check_cuda.sh compiles with NVRTC).
#ifndef KERNELS_ONLY
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#endif

typedef unsigned long long u64;

// y = A x on an n x n grid, row-major (index i * n + j, as cg.rs's LayoutRight Views).
extern "C" __global__ void cg_laplacian(double* __restrict__ y, const double* __restrict__ x, u64 n) {
  u64 j = blockIdx.x * (u64)blockDim.x + threadIdx.x, i = blockIdx.y * (u64)blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  u64 k = i * n + j;
  double s = 4.0 * x[k];
  if (i > 0) s -= x[k - n];
  if (i + 1 < n) s -= x[k + n];
  if (j > 0) s -= x[k - 1];
  if (j + 1 < n) s -= x[k + 1];
  y[k] = s;
}

// *out += sum a[k] b[k] (out zeroed before).
extern "C" __global__ void cg_dot(const double* __restrict__ a, const double* __restrict__ b,
                                  double* out, u64 len) {
  double t = 0.0;
  for (u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x; k < len; k += (u64)gridDim.x * blockDim.x)
    t += a[k] * b[k];
  for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
  __shared__ double warps[32];
  unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warps[warp] = t;
  __syncthreads();
  if (warp == 0) {
    t = lane < blockDim.x / 32 ? warps[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
    if (lane == 0) atomicAdd(out, t);
  }
}

// x += alpha p, r -= alpha Ap with alpha = rr / pAp read on the device.
extern "C" __global__ void cg_step_xr(double* __restrict__ x, double* __restrict__ r,
                                      const double* __restrict__ p, const double* __restrict__ ap,
                                      const double* rr, const double* pap, u64 len) {
  u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  if (k >= len) return;
  double alpha = rr[0] / pap[0];
  x[k] += alpha * p[k];
  r[k] -= alpha * ap[k];
}

// p = r + (rr_new / rr) p.
extern "C" __global__ void cg_step_p(double* __restrict__ p, const double* __restrict__ r,
                                     const double* rr_new, const double* rr, u64 len) {
  u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  if (k >= len) return;
  p[k] = r[k] + rr_new[0] / rr[0] * p[k];
}

#ifndef KERNELS_ONLY
#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e = (x);                                                         \
    if (e != cudaSuccess) {                                                      \
      fprintf(stderr, "cg_ref: CUDA %s at line %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

static const int CHECK_EVERY = 20;
static const double TOL = 1e-10;

int main(int argc, char** argv) {
  u64 n = argc > 1 ? strtoull(argv[1], 0, 10) : 128;
  u64 iters = argc > 2 ? strtoull(argv[2], 0, 10) : 400;
  if (n < 2 || iters == 0) {
    fprintf(stderr, "usage: cg_ref [n >= 2] [iters > 0]\n");
    return 2;
  }
  u64 len = n * n;
  size_t bytes = len * sizeof(double);
  // x* as cg.rs makes it: a smooth mode plus a deterministic pseudo-random part.
  std::vector<double> exact(len);
  for (u64 i = 0; i < n; i++)
    for (u64 j = 0; j < n; j++) {
      double h = (double)(i * 7919 + j * 104729) * 0.618034;
      exact[i * n + j] = sin(M_PI * (double)(i + 1) / (double)(n + 1)) + (h - trunc(h)) - 0.5;
    }
  double *xs, *b, *x, *r, *p, *ap, *scalars;
  CK(cudaMalloc(&xs, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&r, bytes));
  CK(cudaMalloc(&p, bytes));
  CK(cudaMalloc(&ap, bytes));
  CK(cudaMalloc(&scalars, 4 * sizeof(double)));
  CK(cudaMemcpy(xs, exact.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemset(x, 0, bytes));
  int dev, sms;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  dim3 tile(32, 8), grid2((unsigned)((n + 31) / 32), (unsigned)((n + 7) / 8));
  unsigned blocks1 = (unsigned)((len + 255) / 256), dot_blocks = (unsigned)(sms * 8);
  double *bb_d = scalars, *rr = scalars + 1, *rr_new = scalars + 2, *pap = scalars + 3;
  // dot(a, b) into *out, asynchronous.
  auto dot = [&](const double* a, const double* c, double* out) {
    CK(cudaMemsetAsync(out, 0, sizeof(double)));
    cg_dot<<<dot_blocks, 256>>>(a, c, out, len);
  };
  cg_laplacian<<<grid2, tile>>>(b, xs, n);
  CK(cudaMemcpy(r, b, bytes, cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(p, b, bytes, cudaMemcpyDeviceToDevice));
  double bb;
  dot(b, b, bb_d);
  CK(cudaMemcpy(&bb, bb_d, sizeof(double), cudaMemcpyDeviceToHost));
  dot(r, r, rr);
  CK(cudaGetLastError());

  auto t0 = std::chrono::steady_clock::now();
  u64 steps = 0;
  double residual = 1.0;
  while (steps < iters) {
    u64 batch = iters - steps < (u64)CHECK_EVERY ? iters - steps : (u64)CHECK_EVERY;
    for (u64 s = 0; s < batch; s++) {
      cg_laplacian<<<grid2, tile>>>(ap, p, n);
      dot(p, ap, pap);
      cg_step_xr<<<blocks1, 256>>>(x, r, p, ap, rr, pap, len);
      dot(r, r, rr_new);
      cg_step_p<<<blocks1, 256>>>(p, r, rr_new, rr, len);
      double* t = rr;
      rr = rr_new;
      rr_new = t;
      steps++;
    }
    double rrh;
    CK(cudaMemcpy(&rrh, rr, sizeof(double), cudaMemcpyDeviceToHost));
    residual = sqrt(rrh / bb);
    if (residual < TOL) break;
  }
  CK(cudaDeviceSynchronize());
  double per_step =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / (double)steps;
  CK(cudaGetLastError());
  std::vector<double> xh(len);
  CK(cudaMemcpy(xh.data(), x, bytes, cudaMemcpyDeviceToHost));
  double scale = 0.0, err = 0.0;
  for (u64 k = 0; k < len; k++) {
    scale = fmax(scale, fabs(exact[k]));
    err = fmax(err, fabs(xh[k] - exact[k]));
  }
  double error = err / scale;
  printf("{\"bench\":\"cg\",\"backend\":\"cuda-c\",\"n\":%llu,\"steps\":%llu,\"residual\":%.6g,"
         "\"error\":%.6g,\"metric\":\"s/step\",\"value\":%.9g}\n",
         n, steps, residual, error, per_step);
  if (residual >= TOL) {
    fprintf(stderr, "cg_ref: not converged in %llu steps (raise iters)\n", steps);
    return 1;
  }
  if (error > 1e-6) {
    fprintf(stderr, "cg_ref: converged but the error against x* is %.2e\n", error);
    return 1;
  }
  return 0;
}
#endif
