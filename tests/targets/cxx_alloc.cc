// cxx_alloc.cc — C++ allocations (new/delete, new[]/delete[], containers) in a named thread;
// prints the bytes the thread requested and freed, for the test to compare with its row.
#include <pthread.h>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

struct Blob { char data[256]; };

static unsigned long requested, released;

int main()
{
    std::thread t([] {
        pthread_setname_np(pthread_self(), "cxx-worker");
        std::vector<Blob *> keep;
        keep.reserve(1000);                           // 8000 bytes, freed at the end
        requested += 1000 * sizeof(Blob *);
        for (int i = 0; i < 1000; i++) keep.push_back(new Blob());
        requested += 1000 * sizeof(Blob);
        for (int i = 0; i < 400; i++) delete keep[i];
        released += 400 * sizeof(Blob);
        int *arr = new int[50000];
        requested += 50000 * sizeof(int);
        arr[10] = 3;
        delete[] arr;
        released += 50000 * sizeof(int);
        for (int i = 400; i < 1000; i++) delete keep[i];
        released += 600 * sizeof(Blob);
        keep.clear();
        keep.shrink_to_fit();
        released += 1000 * sizeof(Blob *);
    });
    t.join();
    std::printf("cxx-worker %lu %lu\n", requested, released);
    return 0;
}
