// OpenSSL's libcrypto (Debian's libssl-dev, 3.x) for RemoteModalCrypto, its only importer:
// SHA-256 through EVP and HMAC-SHA256. libwebsockets links the same library already.
// The digest sizes are macros; they are exported here as constants Swift can import.
#ifndef CREMOTEMODALCRYPTO_SHIM_H
#define CREMOTEMODALCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stddef.h>

/// SHA256_DIGEST_LENGTH (32).
static const int crmcrypto_sha256_digest_length = SHA256_DIGEST_LENGTH;

/// A new context set up for SHA-256; NULL when it could not be allocated or initialised.
static inline EVP_MD_CTX *crmcrypto_sha256_new(void) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return context;
}

/// A copy of a context, to finish while the original goes on; NULL on failure.
static inline EVP_MD_CTX *crmcrypto_sha256_copy(const EVP_MD_CTX *context) {
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    if (copy == NULL) return NULL;
    if (EVP_MD_CTX_copy_ex(copy, context) != 1) {
        EVP_MD_CTX_free(copy);
        return NULL;
    }
    return copy;
}

/// Adds bytes; 1 on success.
static inline int crmcrypto_sha256_update(EVP_MD_CTX *context, const void *bytes, size_t count) {
    return EVP_DigestUpdate(context, bytes, count);
}

/// Writes the 32-byte digest to `out` and ends the context's hash; 1 on success.
static inline int crmcrypto_sha256_final(EVP_MD_CTX *context, unsigned char *out) {
    unsigned int length = 0;
    int ok = EVP_DigestFinal_ex(context, out, &length);
    return ok == 1 && length == SHA256_DIGEST_LENGTH;
}

static inline void crmcrypto_sha256_free(EVP_MD_CTX *context) { EVP_MD_CTX_free(context); }

/// HMAC-SHA256 of a message under a key, written to `out` (32 bytes); 1 on success.
static inline int crmcrypto_hmac_sha256(const void *key, size_t key_count, const void *message, size_t message_count,
                                        unsigned char *out) {
    unsigned int length = 0;
    if (key_count > 0x7fffffff) return 0;  // HMAC() takes the key's length as an int.
    // HMAC() reads no key bytes when key_count is 0, but wants a non-NULL pointer.
    static const unsigned char empty = 0;
    if (key == NULL) key = &empty;
    if (message == NULL) message = &empty;
    unsigned char *result = HMAC(EVP_sha256(), key, (int)key_count, (const unsigned char *)message, message_count, out,
                                 &length);
    return result != NULL && length == SHA256_DIGEST_LENGTH;
}

/// Whether `count` bytes at `a` and `b` are equal, in time that does not depend on where they differ.
static inline int crmcrypto_equal(const void *a, const void *b, size_t count) {
    return CRYPTO_memcmp(a, b, count) == 0;
}

#endif
