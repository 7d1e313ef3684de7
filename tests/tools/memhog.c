/* A stand-in compiler for the memory budget's tests and benchmark:
 *   memhog MB HOLD_MS OUT
 * allocates MB megabytes, touches every page (so they are resident), holds
 * them HOLD_MS milliseconds, then writes OUT ("memhog MB\n") and exits 0.
 * The memory is asked for in huge pages where the kernel gives them
 * (MADV_HUGEPAGE): on a virtual machine every 4 KiB first touch is a fault of
 * the host too (seen: 3.7 s of CPU per GiB), which would make the stand-in's
 * cost CPU time rather than the memory it holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: memhog MB HOLD_MS OUT\n");
        return 2;
    }
    size_t mb = strtoul(argv[1], NULL, 10);
    long hold = strtol(argv[2], NULL, 10);
    char* p = NULL;
    if (mb) {
        p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) p = NULL;
    }
    if (p) (void)madvise(p, mb << 20, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
    if (mb && !p) {
        fprintf(stderr, "memhog: cannot allocate %zu MB\n", mb);
        return 1;
    }
    if (p) memset(p, 1, mb << 20);
    struct timespec ts = {hold / 1000, (hold % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    FILE* out = fopen(argv[3], "w");
    if (!out || fprintf(out, "memhog %zu %d\n", mb, p ? p[mb << 19] : 0) < 0 || fclose(out) != 0) {
        perror(argv[3]);
        return 1;
    }
    if (p) munmap(p, mb << 20);
    return 0;
}
