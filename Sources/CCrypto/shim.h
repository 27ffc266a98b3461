#include <openssl/evp.h>
#include <openssl/crypto.h>
