#include "bridget_memory.h"

#include <stdlib.h> // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Free memory the allocator may keep before it is handed back: a trim hands back every free page, and the next
/// batch faults the pages it needs in again, so trimming after every batch cost an import 5 to 8% of its CPU.
static const size_t kept_free_bytes = (size_t)32 << 20;

void bridget_release_free_memory(void) {
#if defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 33)
    if (mallinfo2().fordblks <= kept_free_bytes) return;
#endif
    malloc_trim(0);
#endif
}
