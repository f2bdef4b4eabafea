// A NAS-style EP kernel ("embarrassingly parallel", after NPB EP) in OpenMP: Gaussian pairs by
// the Marsaglia polar method from NPB's linear congruential generator (a = 5^13, modulus 2^46),
// counted in square annuli. The threads share nothing but the final reduction, so its time
// follows how many CPUs its OpenMP team gets. Prints the sums, the counts and "Mops/s=N".
//   nas_ep [LOG2_PAIRS]   (default 24: 2^24 pairs)
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define R46 (1.0 / 70368744177664.0)  // 2^-46
#define T46 70368744177664.0          // 2^46
#define BATCH 65536                   // pairs per independent stream

// x_{k+1} = a * x_k mod 2^46 in doubles, as NPB's randlc (exact in 46-bit arithmetic).
static double randlc(double* x, double a) {
  const double r23 = 1.0 / 8388608.0, t23 = 8388608.0;
  double a1 = floor(r23 * a), a2 = a - t23 * a1;
  double x1 = floor(r23 * *x), x2 = *x - t23 * x1;
  double t1 = a1 * x2 + a2 * x1;
  double t2 = floor(r23 * t1), z = t1 - t23 * t2;
  double t3 = t23 * z + a2 * x2;
  double t4 = floor(R46 * t3);
  *x = t3 - T46 * t4;
  return R46 * *x;
}

int main(int argc, char** argv) {
  int log2_pairs = argc > 1 ? atoi(argv[1]) : 24;
  if (log2_pairs < 16 || log2_pairs > 34) {
    fprintf(stderr, "nas_ep: LOG2_PAIRS must be 16..34\n");
    return 2;
  }
  const long batches = (1L << log2_pairs) / BATCH;
  const double a = 1220703125.0;  // 5^13
  double sx = 0, sy = 0;
  long counts[10] = {0};
  double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sx, sy)
  {
    long mine[10] = {0};
#pragma omp for schedule(static)
    for (long b = 0; b < batches; ++b) {
      // Each batch its own stream: seed = 271828183 advanced b+1 steps of a larger multiplier.
      double seed = 271828183.0, mult = a;
      for (long k = b + 1; k > 0; k >>= 1) {
        if (k & 1) randlc(&seed, mult);
        double m = mult;
        randlc(&m, mult);
        mult = m;
      }
      for (int i = 0; i < BATCH; ++i) {
        double x = 2.0 * randlc(&seed, a) - 1.0, y = 2.0 * randlc(&seed, a) - 1.0;
        double t = x * x + y * y;
        if (t > 1.0 || t == 0.0) continue;
        double f = sqrt(-2.0 * log(t) / t);
        double gx = x * f, gy = y * f;
        int l = (int)fmax(fabs(gx), fabs(gy));
        if (l < 10) ++mine[l];
        sx += gx;
        sy += gy;
      }
    }
#pragma omp critical
    for (int l = 0; l < 10; ++l) counts[l] += mine[l];
  }
  double s = omp_get_wtime() - t0;
  long total = 0;
  for (int l = 0; l < 10; ++l) total += counts[l];
  printf("threads=%d pairs=2^%d sx=%.10e sy=%.10e gaussian=%ld\n", omp_get_max_threads(),
         log2_pairs, sx, sy, total);
  printf("Mops/s=%.2f\n", (double)(1L << log2_pairs) / s / 1e6);
  return 0;
}
