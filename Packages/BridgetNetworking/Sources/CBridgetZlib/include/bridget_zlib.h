#ifndef BRIDGET_ZLIB_H
#define BRIDGET_ZLIB_H

#include <zlib.h>

/// Prepares `stream` (zeroed by the caller) to inflate gzip data: `inflateInit2` with a 32 KB window and gzip
/// framing (15 + 16). `inflateInit2` is a function-like macro, which Swift cannot call. Returns zlib's status
/// (`Z_OK` on success); the caller ends the stream with `inflateEnd`.
int bridget_inflate_init_gzip(z_stream *stream);

#endif
