// not emitted: unsupported: f64 `sin` on CUDA: CUDA's own function is documented above the 1-ulp contract and the software math library is not emitted as CUDA C yet
