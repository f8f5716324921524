// The OpenMP reference for rokkos' examples/md.rs: the same Lennard-Jones MD (ExaMiniMD's and
// LAMMPS' in.lj: FCC at reduced density 0.8442, cutoff 2.5, skin 0.3, dt 0.005, temperature 1.4,
// a full neighbour list of 128 slots per atom rebuilt every 20 steps from a stable counting sort
// of the atoms into cells, velocity Verlet, minimum images in the periodic box), the same
// arithmetic in the same order, parallel over atoms (`omp parallel for schedule(static)`), so that
// with -ffp-contract=off the trajectory is bit for bit rokkos' and only the energy sums (OpenMP's
// reduction order) differ in their last bits. ../shared/reference has no MD; this file is ours.
// Build: gcc -O3 -march=native -ffp-contract=off -fopenmp md_omp.c -o md_omp -lm
// Run:   OMP_NUM_THREADS=2 ./md_omp [cells 20] [steps 100] [every 20]
// Prints one JSON object in examples/md's schema.
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_NEIGH 128
static const double CUTOFF = 2.5, SKIN = 0.3, DT = 0.005, DENSITY = 0.8442, TEMPERATURE = 1.4;

static uint64_t splitmix(uint64_t *s) {
    *s += 0x9E3779B97F4A7C15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double image(double dx, double l) {
    double r = dx;
    if (r > 0.5 * l) r -= l;
    if (r < -0.5 * l) r += l;
    return r;
}

static inline size_t cell_of(double p, double inv_cell, size_t nc) {
    // Rust's `as usize`: saturating at 0 for negative values (none after the wrap).
    double q = p * inv_cell;
    size_t c = q > 0 ? (size_t)q : 0;
    return c < nc - 1 ? c : nc - 1;
}

typedef struct {
    size_t n, nc;
    double l, inv_cell, cut2, rc2;
    double *x, *v, *f;
    uint32_t *neigh, *count, *start, *order, *fill;
    size_t *of;
} md_t;

static void rebuild(md_t *m) {
    size_t n = m->n, nc = m->nc, cells = nc * nc * nc;
    double l = m->l;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            double p = m->x[3 * i + d];
            if (p < 0.0) p += l;
            if (p >= l) p -= l;
            m->x[3 * i + d] = p;
        }
    // The stable counting sort, serial as rokkos' (on the host).
    for (size_t c = 0; c <= cells; c++) m->start[c] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = (cell_of(m->x[3 * i], m->inv_cell, nc) * nc + cell_of(m->x[3 * i + 1], m->inv_cell, nc)) * nc +
                   cell_of(m->x[3 * i + 2], m->inv_cell, nc);
        m->of[i] = c;
        m->start[c + 1] += 1;
    }
    for (size_t c = 0; c < cells; c++) m->start[c + 1] += m->start[c];
    for (size_t c = 0; c <= cells; c++) m->fill[c] = m->start[c];
    for (size_t i = 0; i < n; i++) m->order[m->fill[m->of[i]]++] = (uint32_t)i;
    int over = 0;
#pragma omp parallel for schedule(static) reduction(| : over)
    for (size_t i = 0; i < n; i++) {
        double xi = m->x[3 * i], yi = m->x[3 * i + 1], zi = m->x[3 * i + 2];
        size_t cx = cell_of(xi, m->inv_cell, nc), cy = cell_of(yi, m->inv_cell, nc),
               cz = cell_of(zi, m->inv_cell, nc);
        size_t k_n = 0;
        for (size_t a = 0; a < 3; a++) {
            size_t bx = (cx + nc + a - 1) % nc;
            for (size_t b = 0; b < 3; b++) {
                size_t by = (cy + nc + b - 1) % nc;
                for (size_t c = 0; c < 3; c++) {
                    size_t bz = (cz + nc + c - 1) % nc;
                    size_t cell = (bx * nc + by) * nc + bz;
                    for (size_t k = m->start[cell]; k < m->start[cell + 1]; k++) {
                        size_t j = m->order[k];
                        if (j == i) continue;
                        double dx = image(m->x[3 * j] - xi, l);
                        double dy = image(m->x[3 * j + 1] - yi, l);
                        double dz = image(m->x[3 * j + 2] - zi, l);
                        if (dx * dx + dy * dy + dz * dz < m->rc2) {
                            if (k_n < MAX_NEIGH) m->neigh[i * MAX_NEIGH + k_n] = (uint32_t)j;
                            k_n++;
                        }
                    }
                }
            }
        }
        m->count[i] = (uint32_t)k_n;
        over |= k_n > MAX_NEIGH;
    }
    if (over) {
        fprintf(stderr, "md_omp: a neighbour list overflowed its %d slots\n", MAX_NEIGH);
        exit(1);
    }
}

static void force(md_t *m) {
    double l = m->l;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < m->n; i++) {
        double xi = m->x[3 * i], yi = m->x[3 * i + 1], zi = m->x[3 * i + 2];
        double fx = 0.0, fy = 0.0, fz = 0.0;
        const uint32_t *nb = m->neigh + i * MAX_NEIGH;
        for (size_t k = 0; k < m->count[i]; k++) {
            size_t j = nb[k];
            double dx = image(xi - m->x[3 * j], l);
            double dy = image(yi - m->x[3 * j + 1], l);
            double dz = image(zi - m->x[3 * j + 2], l);
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < m->cut2) {
                double r2inv = 1.0 / r2;
                double r6inv = r2inv * r2inv * r2inv;
                double fpair = 48.0 * r6inv * (r6inv - 0.5) * r2inv;
                fx += dx * fpair;
                fy += dy * fpair;
                fz += dz * fpair;
            }
        }
        m->f[3 * i] = fx;
        m->f[3 * i + 1] = fy;
        m->f[3 * i + 2] = fz;
    }
}

static double potential(md_t *m, double shift) {
    double l = m->l, total = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (size_t i = 0; i < m->n; i++) {
        double xi = m->x[3 * i], yi = m->x[3 * i + 1], zi = m->x[3 * i + 2], e = 0.0;
        const uint32_t *nb = m->neigh + i * MAX_NEIGH;
        for (size_t k = 0; k < m->count[i]; k++) {
            size_t j = nb[k];
            double dx = image(xi - m->x[3 * j], l);
            double dy = image(yi - m->x[3 * j + 1], l);
            double dz = image(zi - m->x[3 * j + 2], l);
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < m->cut2) {
                double r6inv = 1.0 / (r2 * r2 * r2);
                e += 2.0 * r6inv * (r6inv - 1.0) - 0.5 * shift;
            }
        }
        total += e;
    }
    return total;
}

static double kinetic(md_t *m) {
    double total = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (size_t i = 0; i < m->n; i++) {
        const double *v = m->v + 3 * i;
        total += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    return total;
}

int main(int argc, char **argv) {
    size_t cells = argc > 1 ? strtoull(argv[1], NULL, 10) : 20;
    size_t steps = argc > 2 ? strtoull(argv[2], NULL, 10) : 100;
    size_t every = argc > 3 ? strtoull(argv[3], NULL, 10) : 20;
    if (cells < 4 || steps == 0 || every == 0) {
        fprintf(stderr, "usage: md_omp [cells >= 4] [steps >= 1] [every >= 1]\n");
        return 2;
    }
    md_t m;
    double a = cbrt(4.0 / DENSITY);
    m.n = 4 * cells * cells * cells;
    m.l = (double)cells * a;
    double rc = CUTOFF + SKIN;
    m.nc = (size_t)floor(m.l / rc);
    if (m.nc < 3) m.nc = 3;
    m.inv_cell = (double)m.nc / m.l;
    m.cut2 = CUTOFF * CUTOFF;
    m.rc2 = rc * rc;
    size_t n = m.n, ncell = m.nc * m.nc * m.nc;
    m.x = malloc(3 * n * sizeof(double));
    m.v = malloc(3 * n * sizeof(double));
    m.f = malloc(3 * n * sizeof(double));
    m.neigh = malloc(n * MAX_NEIGH * sizeof(uint32_t));
    m.count = malloc(n * sizeof(uint32_t));
    m.start = malloc((ncell + 1) * sizeof(uint32_t));
    m.fill = malloc((ncell + 1) * sizeof(uint32_t));
    m.order = malloc(n * sizeof(uint32_t));
    m.of = malloc(n * sizeof(size_t));
    if (!m.x || !m.v || !m.f || !m.neigh || !m.count || !m.start || !m.fill || !m.order || !m.of) return 3;
    const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    size_t p = 0;
    for (size_t i = 0; i < cells; i++)
        for (size_t j = 0; j < cells; j++)
            for (size_t k = 0; k < cells; k++)
                for (int b = 0; b < 4; b++) {
                    m.x[p++] = ((double)i + basis[b][0]) * a;
                    m.x[p++] = ((double)j + basis[b][1]) * a;
                    m.x[p++] = ((double)k + basis[b][2]) * a;
                }
    uint64_t s = 87287;
    for (size_t q = 0; q < 3 * n; q++) m.v[q] = (double)(splitmix(&s) >> 11) / (double)(1ull << 53) - 0.5;
    for (int d = 0; d < 3; d++) {
        double sum = 0;
        for (size_t i = 0; i < n; i++) sum += m.v[3 * i + d];
        double mean = sum / (double)n;
        for (size_t i = 0; i < n; i++) m.v[3 * i + d] -= mean;
    }
    double ke = 0;
    for (size_t q = 0; q < 3 * n; q++) ke += 0.5 * m.v[q] * m.v[q];
    double t = 2.0 * ke / (3.0 * (double)n - 3.0);
    double scale = sqrt(TEMPERATURE / t);
    for (size_t q = 0; q < 3 * n; q++) m.v[q] *= scale;

    double r6 = 1.0 / (m.cut2 * m.cut2 * m.cut2), u_rc = 4.0 * r6 * (r6 - 1.0);
    rebuild(&m);
    force(&m);
    double conserved0 = (potential(&m, u_rc) + kinetic(&m)) / (double)n;
    double t0 = omp_get_wtime();
    for (size_t step = 1; step <= steps; step++) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            for (int d = 0; d < 3; d++) {
                m.v[3 * i + d] += 0.5 * DT * m.f[3 * i + d];
                m.x[3 * i + d] += DT * m.v[3 * i + d];
            }
        if (step % every == 0) rebuild(&m);
        force(&m);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            for (int d = 0; d < 3; d++) m.v[3 * i + d] += 0.5 * DT * m.f[3 * i + d];
    }
    double per_step = (omp_get_wtime() - t0) / (double)steps;
    double pe = potential(&m, 0.0) / (double)n, kin = kinetic(&m) / (double)n;
    double conserved = potential(&m, u_rc) / (double)n + kin;
    unsigned most = 0;
    for (size_t i = 0; i < n; i++) most = m.count[i] > most ? m.count[i] : most;
    printf("{\"bench\":\"md\",\"backend\":\"openmp\",\"threads\":%d,\"atoms\":%zu,\"steps\":%zu,\"pe\":%.17g,"
           "\"ke\":%.17g,\"etot\":%.17g,\"conserved\":%.17g,\"conserved0\":%.17g,\"max_neigh\":%u,"
           "\"metric\":\"s/step\",\"value\":%.6e}\n",
           omp_get_max_threads(), n, steps, pe, kin, pe + kin, conserved, conserved0, most, per_step);
    return 0;
}
