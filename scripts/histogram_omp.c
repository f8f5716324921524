// The OpenMP references for rokkos' ScatterView histogram (containers/examples/histogram.rs
// --bench): the same samples (splitmix64 from seed 1, squared uniforms in [0, 1), so that low bins
// are hot; weights from seed 2), binned into 2^10 and 2^20 bins with u32 counts and f64 weights,
// three ways, each timed as rokkos times its ScatterView (zeroing, binning, combining):
//   omp_reduction   `reduction(+ : hist[:bins])`, OpenMP 4.5's array-section reduction;
//   omp_per_thread  a copy of the histogram per thread, zeroed and binned by its thread, then
//                   summed over threads in a parallel loop over bins (what Kokkos' ScatterView
//                   does on OpenMP);
//   omp_atomic      `#pragma omp atomic` adds into one shared histogram.
// Prints one JSON object per line, in the example's schema. ../shared/reference has no
// histogram; this file is ours.
// Build: gcc -O3 -fopenmp histogram_omp.c -o histogram_omp
// Run:   OMP_NUM_THREADS=$(nproc) OMP_STACKSIZE=64M ./histogram_omp [n] [reps]
//        (GCC puts each thread's private reduction array on its stack: 8 MiB for 2^20 f64.)
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void samples(uint64_t seed, size_t n, double *out) {
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        s += 0x9E3779B97F4A7C15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        double u = (double)(z >> 11) / (double)(1ull << 53);
        out[i] = u * u;
    }
}

static size_t bin_of(double x, size_t bins) {
    size_t b = (size_t)(x * (double)bins);
    return b < bins - 1 ? b : bins - 1;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// One case: `reps` timed runs after a warm-up; best and median in seconds.
typedef void (*run_fn)(const double *x, const double *w, size_t n, size_t bins, void *out,
                       void *scratch);

static void u32_reduction(const double *x, const double *w, size_t n, size_t bins, void *out,
                          void *scratch) {
    (void)w, (void)scratch;
    uint32_t *h = out;
    memset(h, 0, bins * sizeof *h);
#pragma omp parallel for reduction(+ : h[:bins])
    for (size_t i = 0; i < n; i++) h[bin_of(x[i], bins)] += 1;
}

static void f64_reduction(const double *x, const double *w, size_t n, size_t bins, void *out,
                          void *scratch) {
    (void)scratch;
    double *h = out;
    memset(h, 0, bins * sizeof *h);
#pragma omp parallel for reduction(+ : h[:bins])
    for (size_t i = 0; i < n; i++) h[bin_of(x[i], bins)] += w[i];
}

static void u32_per_thread(const double *x, const double *w, size_t n, size_t bins, void *out,
                           void *scratch) {
    (void)w;
    uint32_t *h = out, *copies = scratch;
    int p = omp_get_max_threads();
#pragma omp parallel
    {
        uint32_t *mine = copies + (size_t)omp_get_thread_num() * bins;
        memset(mine, 0, bins * sizeof *mine);
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) mine[bin_of(x[i], bins)] += 1;
#pragma omp for schedule(static)
        for (size_t b = 0; b < bins; b++) {
            uint32_t s = 0;
            for (int t = 0; t < p; t++) s += copies[(size_t)t * bins + b];
            h[b] = s;
        }
    }
}

static void f64_per_thread(const double *x, const double *w, size_t n, size_t bins, void *out,
                           void *scratch) {
    double *h = out, *copies = scratch;
    int p = omp_get_max_threads();
#pragma omp parallel
    {
        double *mine = copies + (size_t)omp_get_thread_num() * bins;
        memset(mine, 0, bins * sizeof *mine);
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) mine[bin_of(x[i], bins)] += w[i];
#pragma omp for schedule(static)
        for (size_t b = 0; b < bins; b++) {
            double s = 0;
            for (int t = 0; t < p; t++) s += copies[(size_t)t * bins + b];
            h[b] = s;
        }
    }
}

static void u32_atomic(const double *x, const double *w, size_t n, size_t bins, void *out,
                       void *scratch) {
    (void)w, (void)scratch;
    uint32_t *h = out;
    memset(h, 0, bins * sizeof *h);
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
#pragma omp atomic
        h[bin_of(x[i], bins)] += 1;
    }
}

static void f64_atomic(const double *x, const double *w, size_t n, size_t bins, void *out,
                       void *scratch) {
    (void)scratch;
    double *h = out;
    memset(h, 0, bins * sizeof *h);
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
#pragma omp atomic
        h[bin_of(x[i], bins)] += w[i];
    }
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 24;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n == 0 || reps < 1) {
        fprintf(stderr, "usage: histogram_omp [n >= 1] [reps >= 1]\n");
        return 2;
    }
    double *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w);
    double *times = malloc((size_t)reps * sizeof *times);
    if (!x || !w || !times) return 3;
    samples(1, n, x);
    samples(2, n, w);
    int p = omp_get_max_threads();
    const size_t all_bins[2] = {(size_t)1 << 10, (size_t)1 << 20};
    for (int k = 0; k < 2; k++) {
        size_t bins = all_bins[k];
        void *out = malloc(bins * sizeof(double));
        void *scratch = malloc((size_t)p * bins * sizeof(double));
        uint32_t *want_u = calloc(bins, sizeof *want_u);
        double *want_f = calloc(bins, sizeof *want_f);
        if (!out || !scratch || !want_u || !want_f) return 3;
        for (size_t i = 0; i < n; i++) {
            want_u[bin_of(x[i], bins)] += 1;
            want_f[bin_of(x[i], bins)] += w[i];
        }
        struct {
            const char *dtype, *kernel;
            run_fn run;
        } cases[6] = {
            {"u32", "omp_reduction", u32_reduction}, {"u32", "omp_per_thread", u32_per_thread},
            {"u32", "omp_atomic", u32_atomic},       {"f64", "omp_reduction", f64_reduction},
            {"f64", "omp_per_thread", f64_per_thread}, {"f64", "omp_atomic", f64_atomic},
        };
        for (int c = 0; c < 6; c++) {
            cases[c].run(x, w, n, bins, out, scratch); // warm-up: pages touched, team started
            for (int r = 0; r < reps; r++) {
                double t0 = omp_get_wtime();
                cases[c].run(x, w, n, bins, out, scratch);
                times[r] = omp_get_wtime() - t0;
            }
            // The counts are exact; the weights' sums in another order agree to rounding.
            int f64 = cases[c].dtype[0] == 'f';
            for (size_t b = 0; b < bins; b++) {
                int ok = f64 ? (((double *)out)[b] - want_f[b] <= 1e-9 * (1 + want_f[b]) &&
                                want_f[b] - ((double *)out)[b] <= 1e-9 * (1 + want_f[b]))
                             : ((uint32_t *)out)[b] == want_u[b];
                if (!ok) {
                    fprintf(stderr, "histogram_omp: %s %s: bin %zu wrong\n", cases[c].dtype,
                            cases[c].kernel, b);
                    return 1;
                }
            }
            qsort(times, (size_t)reps, sizeof *times, cmp);
            double best = times[0], median = times[reps / 2];
            printf("{\"bench\":\"histogram\",\"kernel\":\"%s\",\"backend\":\"openmp\",\"dtype\":\"%s\","
                   "\"n\":%zu,\"bins\":%zu,\"threads\":%d,\"copies\":%d,\"best_s\":%.6f,\"median_s\":%.6f,"
                   "\"metric\":\"Msamples/s\",\"value\":%.2f}\n",
                   cases[c].kernel, cases[c].dtype, n, bins, p,
                   strcmp(cases[c].kernel, "omp_atomic") == 0 ? 1 : p, best, median,
                   n / best / 1e6);
        }
        free(out);
        free(scratch);
        free(want_u);
        free(want_f);
    }
    free(x);
    free(w);
    free(times);
    return 0;
}
