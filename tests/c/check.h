/* check.h: the C tests' one assertion macro (counts failures, prints the first few). */
#ifndef CPN_TEST_CHECK_H
#define CPN_TEST_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(c)                                                                          \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            if (failures < 20) printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);         \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

#endif
