#include "bridget_zlib.h"

int bridget_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
