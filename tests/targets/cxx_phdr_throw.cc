// cxx_phdr_throw.cc — an exception thrown out of a dl_iterate_phdr callback (as an unwinder's
// cache might), caught by the caller; then a mutex first locked in lock_after(). The profiler
// marks a thread inside dl_iterate_phdr as inside the loader, where it takes no stacks: the mark
// must end with the unwound frame, or the mutex is named by no call stack.
#include <link.h>
#include <pthread.h>
#include <cstdio>

static int throw_from_callback(struct dl_phdr_info *, size_t, void *)
{
    throw 42;
}

static __attribute__((noinline)) void lock_after(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
}

int main()
{
    int caught = 0;
    try {
        dl_iterate_phdr(throw_from_callback, nullptr);
    } catch (int v) {
        caught = v;
    }
    pthread_mutex_t *m = new pthread_mutex_t;
    pthread_mutex_init(m, nullptr);
    lock_after(m);
    pthread_mutex_destroy(m);
    delete m;
    std::printf("caught %d\n", caught);
    return caught == 42 ? 0 : 1;
}
