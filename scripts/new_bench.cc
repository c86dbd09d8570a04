// new_bench.cc — a C++ new/delete pair in a tight loop, for make bench to run under glibc,
// jemalloc and tcmalloc, bare and preloaded. Prints "new N ops X ns/op".
#include <chrono>
#include <cstdio>
#include <cstdlib>

struct Node { char bytes[48]; };

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 10000000;
    for (long i = 0; i < n / 10; i++) {
        Node *p = new Node;
        asm volatile("" : : "r"(p) : "memory");
        delete p;
    }
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < n; i++) {
        Node *p = new Node;
        asm volatile("" : : "r"(p) : "memory");
        delete p;
    }
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::printf("new %ld ops %.2f ns/op\n", n, ns / (double)n);
    return 0;
}
