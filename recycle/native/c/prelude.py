"""What every translated C file starts with (after harness.HEADER, the two libc headers of the
stepping harness: ucontext.h and string.h), Python's integer division and remainder, min,
max, abs, and the float functions it uses (from libm)."""

PRELUDE = r"""
double sqrt(double); double log(double); double exp(double); double fabs(double); double floor(double);
double pow(double, double); double fmod(double, double);
static double rc_inf(void) { union { unsigned long long u; double d; } x; x.u = 0x7ff0000000000000ULL; return x.d; }
static double rc_nan(void) { union { unsigned long long u; double d; } x; x.u = 0x7ff8000000000000ULL; return x.d; }
/* Python's // and % (floor), by zero 0 (the native code checks its divisors: runtime.c_div) */
static inline long long rc_floordiv_i64(long long a, long long b) {
    if (b == 0) return 0;
    if (b == -1) return (long long)(0ULL - (unsigned long long)a);
    long long q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline long long rc_mod_i64(long long a, long long b) {
    if (b == 0 || b == -1) return 0;
    long long r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline unsigned long long rc_floordiv_u64(unsigned long long a, unsigned long long b) { return b ? a / b : 0; }
static inline unsigned long long rc_mod_u64(unsigned long long a, unsigned long long b) { return b ? a % b : 0; }
static inline double rc_floordiv_f64(double a, double b) { return floor(a / b); }
static inline double rc_mod_f64(double a, double b) {
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline long long rc_pow_i64(long long a, long long b) { long long r = 1; while (b-- > 0) r *= a; return r; }
static inline double rc_pow_f64(double a, double b) { return pow(a, b); }
static inline long long rc_abs_i64(long long a) { return a < 0 ? -a : a; }
static inline long long rc_min_i64(long long a, long long b) { return b < a ? b : a; }
static inline long long rc_max_i64(long long a, long long b) { return b > a ? b : a; }
static inline unsigned long long rc_min_u64(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
static inline unsigned long long rc_max_u64(unsigned long long a, unsigned long long b) { return b > a ? b : a; }
static inline double rc_min_f64(double a, double b) { return b < a ? b : a; }
static inline double rc_max_f64(double a, double b) { return b > a ? b : a; }
"""
