// Launch latency of a small OpenMP 5.0 scan, the reference for examples/launch's `parallel_scan`:
// an exclusive prefix sum y[i] = x[0] + ... + x[i-1] over doubles (`reduction(inscan, +)` with
// `#pragma omp scan exclusive`), best over 5 rounds of 20000 back-to-back launches, for n = 1000
// and n = 100000, in launch_omp.c's method. ../shared/reference has no scan; this file is ours.
// Build: gcc -O3 -march=native -fopenmp scan_omp.c -o scan_omp      (GCC 10 or later)
// Run:   OMP_NUM_THREADS=$(nproc) ./scan_omp
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    const int sizes[2] = {1000, 100000};
    const int reps = 20000;
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        for (int i = 0; i < n; i++) x[i] = (double)(i % 7);
        double best = 1e9, sink = 0;
        for (int round = 0; round < 5; round++) {
            double t0 = omp_get_wtime();
            for (int r = 0; r < reps; r++) {
                double acc = 0;
#pragma omp parallel for reduction(inscan, + : acc)
                for (int i = 0; i < n; i++) {
                    y[i] = acc;
#pragma omp scan exclusive(acc)
                    acc += x[i];
                }
                sink += y[n - 1];
            }
            double t = (omp_get_wtime() - t0) / reps;
            if (t < best) best = t;
        }
        // Exact in doubles (small integers), so any order of the adds gives these sums.
        double want = 0;
        for (int i = 0; i < n; i++) {
            if (y[i] != want) {
                printf("scan_omp: y[%d] = %g, want %g\n", i, y[i], want);
                return 1;
            }
            want += x[i];
        }
        printf("threads %d n=%d scan %.2f us (checksum %g)\n", omp_get_max_threads(), n, best * 1e6, sink);
        free(x);
        free(y);
    }
    return 0;
}
