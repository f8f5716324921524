// Declarations of the CUDA built-ins and runtime API that the benchmark's CUDA C uses, so that
// g++ -fsyntax-only can check its host code (and the device code as C++) on a machine without
// nvcc or the CUDA headers (scripts/check_cuda.sh, which rewrites each `k<<<grid, block>>>(args)`
// as `cuda_stub_launch(grid, block), k(args)` first). Never compiled into anything that runs.
#pragma once
#include <cstddef>
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __restrict__
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
extern dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads();
template <class... A> void cuda_stub_launch(A...);
double atomicAdd(double*, double);
float atomicAdd(float*, float);
double __shfl_down_sync(unsigned, double, int);
float __shfl_down_sync(unsigned, float, int);
enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount };
typedef struct CUevent_st* cudaEvent_t;
struct cudaDeviceProp {
  char name[256];
  int multiProcessorCount;
};
const char* cudaGetErrorString(cudaError_t);
template <class T> cudaError_t cudaMalloc(T**, size_t);
cudaError_t cudaFree(void*);
cudaError_t cudaMemcpy(void*, const void*, size_t, cudaMemcpyKind);
cudaError_t cudaMemset(void*, int, size_t);
cudaError_t cudaMemsetAsync(void*, int, size_t);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaGetDevice(int*);
cudaError_t cudaDeviceGetAttribute(int*, cudaDeviceAttr, int);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp*, int);
cudaError_t cudaEventCreate(cudaEvent_t*);
cudaError_t cudaEventRecord(cudaEvent_t, int = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t);
