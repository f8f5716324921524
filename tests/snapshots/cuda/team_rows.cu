// not emitted: unsupported: TeamPolicy kernels on CUDA (not yet emitted as CUDA C)
