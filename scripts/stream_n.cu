// stream.cu at any n and precision: the fixed reference (../shared/reference/stream.cu, carried
// beside this file, never copied into the repository) is included as it is, its main renamed.
//   stream_n                 the reference's own main (f64 and f32 at 2^25, f64 at 2^28, launches)
//   stream_n f32|f64 N ...   the reference's run<T>(name, N) for each pair (same kernels, same
//                            100 timed repetitions, same output lines)
// run.sh speed needs f32 at 2^28, which the reference's main does not run.
// Build: nvcc -O3 -arch=sm_90 -I. stream_n.cu -o stream_n (stream.cu in the include path).
// The standard headers come first, so that renaming main cannot reach into them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#define main stream_cu_main
#include "stream.cu"
#undef main

int main(int argc, char** argv) {
  if (argc == 1) return stream_cu_main();
  if (argc % 2 == 0) {
    fprintf(stderr, "usage: stream_n [f32|f64 N]...\n");
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
      run<double>("f64", (size_t)n);
    } else if (strcmp(argv[k], "f32") == 0) {
      run<float>("f32", (size_t)n);
    } else {
      fprintf(stderr, "stream_n: dtype must be f32 or f64, not `%s`\n", argv[k]);
      return 2;
    }
  }
  return 0;
}
