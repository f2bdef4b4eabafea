// A NAS-style CG kernel (after NPB CG) in OpenMP: conjugate-gradient iterations on a random
// sparse symmetric positive definite matrix (CSR). Every iteration is a sparse matrix-vector
// product and dot products, each ending in an OpenMP barrier, so the team's threads wait for
// one another many times a second: the kernel is sensitive both to how many CPUs the team has
// and to how quickly a waiting thread is woken. Prints the residual and "Mflops=N".
//   nas_cg [ROWS [ITERATIONS]]   (default 20000 rows, 150 iterations)
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define PER_ROW 12  // off-diagonal entries per row before symmetrising

static unsigned long long rng = 314159265ULL;
static unsigned next_random(void) {  // xorshift64*: a fixed matrix every run
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (unsigned)((rng * 2685821657736338717ULL) >> 32);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 20000;
  const int iterations = argc > 2 ? atoi(argv[2]) : 150;
  if (n < 100 || iterations < 1) {
    fprintf(stderr, "nas_cg: ROWS >= 100 and ITERATIONS >= 1\n");
    return 2;
  }
  // Symmetric pattern: (i, j) and (j, i) with the same value; diagonal dominance makes it SPD.
  int* deg = calloc((size_t)n, sizeof *deg);
  int* pi = malloc(sizeof(int) * (size_t)n * PER_ROW);
  int* pj = malloc(sizeof(int) * (size_t)n * PER_ROW);
  double* pv = malloc(sizeof(double) * (size_t)n * PER_ROW);
  long edges = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < PER_ROW / 2; ++k) {
      int j = (int)(next_random() % (unsigned)n);
      if (j == i) continue;
      pi[edges] = i, pj[edges] = j, pv[edges] = -((double)(next_random() % 1000) + 1) / 1000.0;
      ++deg[i], ++deg[j], ++edges;
    }
  int* row = malloc(sizeof(int) * ((size_t)n + 1));
  row[0] = 0;
  for (int i = 0; i < n; ++i) row[i + 1] = row[i] + deg[i] + 1;
  int* col = malloc(sizeof(int) * (size_t)row[n]);
  double* val = malloc(sizeof(double) * (size_t)row[n]);
  int* fill = malloc(sizeof(int) * (size_t)n);
  double* diag = calloc((size_t)n, sizeof *diag);
  for (int i = 0; i < n; ++i) fill[i] = row[i] + 1;
  for (long e = 0; e < edges; ++e) {
    int i = pi[e], j = pj[e];
    col[fill[i]] = j, val[fill[i]++] = pv[e];
    col[fill[j]] = i, val[fill[j]++] = pv[e];
    diag[i] -= pv[e], diag[j] -= pv[e];
  }
  for (int i = 0; i < n; ++i) col[row[i]] = i, val[row[i]] = diag[i] + 1.0;
  double *x = calloc((size_t)n, sizeof(double)), *r = malloc(sizeof(double) * (size_t)n);
  double *p = malloc(sizeof(double) * (size_t)n), *q = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) r[i] = p[i] = 1.0;  // b = ones, x0 = 0
  double rho = (double)n, t0 = omp_get_wtime();
  for (int it = 0; it < iterations; ++it) {
    double pq = 0, rho_new = 0;
#pragma omp parallel for schedule(static) reduction(+ : pq)
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int k = row[i]; k < row[i + 1]; ++k) sum += val[k] * p[col[k]];
      q[i] = sum;
      pq += p[i] * sum;
    }
    const double alpha = rho / pq;
#pragma omp parallel for schedule(static) reduction(+ : rho_new)
    for (int i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rho_new += r[i] * r[i];
    }
    const double beta = rho_new / rho;
    rho = rho_new;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
  }
  double s = omp_get_wtime() - t0;
  double flops = (double)iterations * (2.0 * row[n] + 10.0 * n);
  printf("threads=%d rows=%d nonzeros=%d iterations=%d residual=%.6e\n", omp_get_max_threads(), n,
         row[n], iterations, sqrt(rho));
  printf("Mflops=%.1f\n", flops / s / 1e6);
  free(deg), free(pi), free(pj), free(pv), free(row), free(col), free(val), free(fill);
  free(diag), free(x), free(r), free(p), free(q);
  return 0;
}
