// cxx_hot.cc — known truth for demangled names: the main thread burns CPU_SECONDS of CPU
// (argv[1], default 1.5) in rounds of the method ns::Hot::spin(int) and the template
// ns::churn<double>(double); each takes about a third of the CPU or more.
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ns {

struct Hot {
    __attribute__((noinline)) unsigned long spin(int units);
    volatile unsigned long acc = 0;
};

unsigned long Hot::spin(int units)
{
    for (long i = 0; i < units * 20000L; i++) acc = acc * 6364136223846793005ull + (unsigned long)i;
    return acc;
}

template <typename T> __attribute__((noinline)) T churn(T x)
{
    volatile T v = x;
    for (long i = 0; i < 20000L; i++) v = v * (T)1.0000001 + (T)0.5;
    return v;
}

}  // namespace ns

static double cpu_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double target = argc > 1 ? atof(argv[1]) : 1.5;
    ns::Hot hot;
    double sink = 0, start = cpu_seconds();
    while (cpu_seconds() - start < target) {
        sink += (double)hot.spin(2);
        sink += ns::churn<double>(sink);
    }
    std::printf("%d\n", sink != 0);
    return 0;
}
