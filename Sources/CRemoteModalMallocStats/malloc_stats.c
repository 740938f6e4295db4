#include "malloc_stats.h"
#include <malloc.h>

size_t rm_malloc_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

int rm_malloc_trim(void) {
    return malloc_trim(0);
}
