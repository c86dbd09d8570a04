// cxx_lib.cc — a C++ library that a C program (dl_cxx) loads with dlopen: its static constructor
// and its function use operator new and delete, which reach the profiler's hooks while libstdc++
// sits only in this library's local scope, and its function throws and catches an exception.
#include <string>
#include <vector>

namespace {
struct Table {
    std::vector<std::string *> rows;
    Table() { rows.push_back(new std::string(100, 'x')); }
    ~Table() {
        for (std::string *s : rows) delete s;
    }
};
Table table;
}

extern "C" long cxx_lib_work(int n)
{
    long total = 0;
    try {                 // a throw inside the library: it may unwind through libunwind's own
        throw n;          // unwinder, which locks a mutex of its own (a hang before)
    } catch (int got) {
        total += got;
    }
    for (int i = 0; i < n; i++) {
        std::string *s = new std::string(static_cast<size_t>(64 + i % 512), 'y');
        total += static_cast<long>(s->size());
        delete s;
        int *block = new int[1000];
        block[999] = i;
        total += block[999];
        delete[] block;
    }
    return total + static_cast<long>(table.rows[0]->size());
}
