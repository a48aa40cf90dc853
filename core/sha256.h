/* sha256: SHA-256 (FIPS 180-4), to identify firmware images in the run history. */
#ifndef XB_SHA256_H
#define XB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct xb_sha256 {
	uint32_t h[8];
	uint64_t len;      /* bytes so far */
	uint8_t buf[64];
	size_t nbuf;
} xb_sha256;

void sha256_init(xb_sha256 *s);
void sha256_update(xb_sha256 *s, const void *data, size_t n);
/* Writes the 32-byte digest; s must be initialised again before reuse. */
void sha256_final(xb_sha256 *s, uint8_t out[32]);
/* The digest of a file as 64 lowercase hex characters and a NUL. */
int sha256_file_hex(const char *path, char out[65], xb_err *err);
/* The digest of n bytes at data, as 64 lower-case hex digits. */
void sha256_hex(const void *data, size_t n, char out[65]);

#endif
