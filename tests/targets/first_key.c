/* first_key.c — the number of the program's first pthread key: bare, or under the preload before
 * the profiler has taken any stack (libunwind, once used, holds a key of its own).
 *
 *   first_key          print the key's number
 *   first_key malloc   one malloc and free first (sampled under HOTPATH_ALLOC_SAMPLE_BYTES=1) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "malloc") == 0) {
        void *volatile block = malloc(64);   /* volatile: the pair is not optimised away */
        free(block);
    }
    pthread_key_t key;
    if (pthread_key_create(&key, NULL) != 0) return 1;
    printf("%u\n", (unsigned)key);
    return 0;
}
